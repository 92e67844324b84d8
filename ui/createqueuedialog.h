// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokerconfig.h"

#include <QDialog>
#include <QJsonObject>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace Broker::Ui {

// Every option of POST /queues, with the configured defaults filled in. The name is checked as
// it is typed; "Copy as curl" copies the equivalent request.
class CreateQueueDialog : public QDialog
{
    Q_OBJECT
public:
    CreateQueueDialog(const QStringList &types, const BrokerConfig::Queues &defaults, const QString &apiUrl,
                      QWidget *parent = nullptr);

    QString name() const;
    QJsonObject options() const;
    QByteArray requestBody() const; // the POST /queues body

private:
    void updateState();

    QString m_apiUrl;
    QLineEdit *m_name;
    QComboBox *m_type;
    QSpinBox *m_maxSize;
    QSpinBox *m_ttl;
    QSpinBox *m_visibility;
    QSpinBox *m_maxDeliveries;
    QCheckBox *m_deadLetter;
    QLineEdit *m_deadLetterName;
    QLabel *m_problem;
    QPushButton *m_create;
};

} // namespace Broker::Ui
