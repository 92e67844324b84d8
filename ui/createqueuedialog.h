// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokerconfig.h"

#include <QDialog>
#include <QJsonObject>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace Broker::Ui {

// Every option of POST /queues, with the configured defaults filled in. The name is checked as
// it is typed (valid, not taken); Enter or Create submits, and the dialog stays open with the
// input until the broker has answered: a refusal shows inline and nothing typed is lost.
// "Copy as" copies the equivalent request.
class CreateQueueDialog : public QDialog
{
    Q_OBJECT
public:
    using QueueExists = std::function<bool(const QString &)>;

    CreateQueueDialog(const QStringList &types, const BrokerConfig::Queues &defaults, const QString &apiUrl,
                      QueueExists queueExists = {}, QWidget *parent = nullptr);

    QString name() const;
    QJsonObject options() const;
    QByteArray requestBody() const; // the POST /queues body
    QString problem() const;        // what stops Create right now, or empty

    // Checks the input; when it is fine, emits createRequested and waits for finish().
    void accept() override;
    // The broker's answer: empty closes the dialog as accepted, a message keeps it open.
    void finish(const QString &error);

Q_SIGNALS:
    void createRequested(const QString &name, const QJsonObject &options);

private:
    void updateState();
    void setBusy(bool busy);

    QString m_apiUrl;
    QueueExists m_queueExists;
    QLineEdit *m_name;
    QComboBox *m_type;
    QSpinBox *m_maxSize;
    QSpinBox *m_ttl;
    QSpinBox *m_visibility;
    QSpinBox *m_maxDeliveries;
    QSpinBox *m_partitions;
    QCheckBox *m_deadLetter;
    QLineEdit *m_deadLetterName;
    QLabel *m_problem;
    QPushButton *m_create;
    QString m_brokerError; // the last refusal, shown until the input changes
    bool m_busy = false;
};

} // namespace Broker::Ui
