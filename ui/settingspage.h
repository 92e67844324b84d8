// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokerconfig.h"
#include "core/configchange.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace Broker::Ui {

// What an admin changes most: where the API listens, the storage backend (memory with its journal,
// or a Redis server), and the limits.
// Apply hands the changed settings (and a line for each, to tell the user) to whoever writes
// the config file and restarts the broker.
class SettingsPage : public QWidget
{
    Q_OBJECT
public:
    explicit SettingsPage(QWidget *parent = nullptr);

    // The settings in force; the form starts from them again.
    void showConfig(const Broker::BrokerConfig &config, const QString &configFile);
    // Settings that differ from those in force.
    QList<ConfigChange> changes() const;
    QStringList describeChanges() const;
    void setBusy(bool busy);

Q_SIGNALS:
    void applyRequested(const QList<Broker::ConfigChange> &changes, const QStringList &descriptions);

private:
    void updateState();

    BrokerConfig m_config;
    QLabel *m_file;
    QLineEdit *m_bind;
    QSpinBox *m_port;
    QComboBox *m_backend;
    QLineEdit *m_redisHost;
    QSpinBox *m_redisPort;
    QSpinBox *m_redisDatabase;
    QLineEdit *m_redisPassword;
    QLineEdit *m_redisPrefix;
    QCheckBox *m_journal;
    QComboBox *m_fsync;
    QSpinBox *m_maxBody;
    QSpinBox *m_maxMessage;
    QSpinBox *m_maxConnections;
    QCheckBox *m_rateLimit;
    QSpinBox *m_requestsPerMinute;
    QLabel *m_problem;
    QPushButton *m_apply;
    QPushButton *m_revert;
};

} // namespace Broker::Ui
