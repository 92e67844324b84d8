// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueconfig.h"

#include <QGroupBox>
#include <QJsonObject>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace Broker::Ui {

// A queue's options as a form: the type shown, the options that may change editable (max size,
// TTL, visibility timeout, max deliveries, dead-letter queue, partitions: these only grow). Enter or Save asks for the change
// (only the options that differ, as the "options" object of PATCH /queues/{q}); a refused change
// keeps what was typed and shows why under the form. Snapshots refresh the form only while the
// user has not changed anything in it.
class QueueOptionsForm : public QGroupBox
{
    Q_OBJECT
public:
    explicit QueueOptionsForm(QWidget *parent = nullptr);

    // Shows `config` of `queue`; a different queue drops any edit in progress.
    void showConfig(const QString &queue, const Broker::QueueConfig &config);
    // Whether the fields differ from the queue's configuration.
    bool isEdited() const;
    // The options that differ, in the wire shape ({"ttl": 60, ...}).
    QJsonObject changedOptions() const;
    // The answer to a save: an error message keeps the form as typed; empty means it was applied.
    void showSaveResult(const QString &error);
    void setSaveEnabled(bool enabled, const QString &why = {});
    QString errorText() const;

    QSpinBox *ttlField() const { return m_ttl; }

Q_SIGNALS:
    void saveRequested(const QJsonObject &options);

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void save();
    void revert();
    void updateButtons();
    void showError(const QString &error);

    QString m_queue;
    QueueConfig m_config;
    bool m_saving = false;
    bool m_saveAllowed = true;
    QLabel *m_type;
    QSpinBox *m_maxSize;
    QSpinBox *m_ttl;
    QSpinBox *m_visibility;
    QSpinBox *m_maxDeliveries;
    QLineEdit *m_deadLetterQueue;
    QSpinBox *m_partitions;
    QLabel *m_errorIcon;
    QLabel *m_error;
    QPushButton *m_save;
    QPushButton *m_revert;
};

} // namespace Broker::Ui
