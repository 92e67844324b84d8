// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/message.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace Broker::Ui {

// A test message for one queue: a JSON editor checked as it is typed (Send stays off until the
// text is one JSON value other than null), priority and delay.
class PublishDialog : public QDialog
{
    Q_OBJECT
public:
    PublishDialog(const QString &queue, const QString &apiUrl, QWidget *parent = nullptr);

    const QString &queue() const { return m_queue; }
    // Valid only when the dialog was accepted (or Send is enabled).
    NewMessage message() const;
    void setText(const QString &json);

private:
    void validate();
    QByteArray requestBody() const;

    QString m_queue;
    QString m_apiUrl;
    QByteArray m_compact;
    QPlainTextEdit *m_editor;
    QSpinBox *m_priority;
    QSpinBox *m_delay;
    QLabel *m_problem;
    QPushButton *m_send;
};

} // namespace Broker::Ui
