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
// text is one JSON value other than null), and only the options the queue's type honours:
// priority for priority queues, delay for every type but streams. Send (or Ctrl+Enter) submits;
// the dialog stays open until the broker has answered, so a refusal shows inline with the text.
class PublishDialog : public QDialog
{
    Q_OBJECT
public:
    PublishDialog(const QString &queue, const QString &queueType, const QString &apiUrl, QWidget *parent = nullptr);

    const QString &queue() const { return m_queue; }
    // Valid only when Send is enabled.
    NewMessage message() const;
    void setText(const QString &json);
    QByteArray requestBody() const; // the POST /messages/{queue} body
    bool offersPriority() const;
    bool offersDelay() const;

    void accept() override;
    // The broker's answer: empty closes the dialog as accepted, a message keeps it open.
    void finish(const QString &error);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

Q_SIGNALS:
    void publishRequested(const Broker::NewMessage &message);

private:
    void validate();

    QString m_queue;
    QString m_apiUrl;
    QByteArray m_compact;
    QPlainTextEdit *m_editor;
    QSpinBox *m_priority;
    QSpinBox *m_delay;
    QLabel *m_problem;
    QPushButton *m_send;
    bool m_busy = false;
};

} // namespace Broker::Ui
