// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerclient.h"

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

class ProblemBanner;
class TlsSettingsForm;

// What an admin changes most: where the API listens, the storage backend (memory with its journal,
// or a Redis server), and the limits. The form starts from the settings in force (the file, the
// environment, then --port/--bind of the command line), so "before" is always what runs.
// Apply hands the changed settings (and a line for each, to tell the user) to whoever writes
// the config file and restarts the broker. When a start fails, a banner says why and what runs
// instead, the form keeps what was tried, and Retry (or "Use port …" for a taken port) is one
// click. "Test connection" asks the broker's thread to reach the Redis server in the form.
// While the API serves HTTPS, an Apply that changes only its certificate, key, client CA or
// lowest version reloads them (tlsReloadRequested) instead of restarting: connections stay.
class SettingsPage : public QWidget
{
    Q_OBJECT
public:
    explicit SettingsPage(BrokerClient &client, QWidget *parent = nullptr);

    // The settings in force; the form starts from them again.
    void showConfig(const Broker::BrokerConfig &config, const QString &configFile);
    // A start's outcome: its settings (when the file could be read) and, when it failed, the banner.
    void showStart(const Broker::StartReport &report);
    // An Apply whose start failed: the banner says why and what runs now; the form shows `tried`.
    void showApplyFailure(const Broker::ApplyReport &report, const Broker::BrokerConfig &tried);
    // An Apply that could not even write the file.
    void showApplyError(const QString &message);
    // A certificate reload that worked: `config` is in force now.
    void showTlsReloaded(const Broker::BrokerConfig &config);
    // A certificate reload that failed: the old certificate is still served and the file says so again.
    void showTlsReloadFailure(const QString &message);
    // The settings as the form has them now (the password in force when the field is empty).
    BrokerConfig edited() const;
    // Settings that differ from those in force.
    QList<ConfigChange> changes() const;
    QStringList describeChanges() const;
    void setBusy(bool busy);
    // Applies the form's changes (asking first when queues would stay behind in the memory store).
    void apply();
    void testRedisConnection();
    QString problem() const;

Q_SIGNALS:
    void applyRequested(const QList<Broker::ConfigChange> &changes, const QStringList &descriptions);
    void tlsReloadRequested(const QList<Broker::ConfigChange> &changes, const QStringList &descriptions);

private:
    void showForm(const BrokerConfig &config);
    void showPortSource();
    void offerFixes(int freePort);
    void updateState();
    // Whether Apply reloads the certificate rather than restarting the broker.
    bool reloadsTlsOnly() const;

    BrokerClient &m_client;
    BrokerConfig m_config;
    int m_commandLinePort = -1;
    int m_configuredPort = 0;
    ProblemBanner *m_banner;
    QLabel *m_portSource;
    QPushButton *m_testRedis;
    QLabel *m_redisResult;
    QLabel *m_file;
    QLineEdit *m_bind;
    QSpinBox *m_port;
    QLabel *m_plaintextWarning;
    TlsSettingsForm *m_tls;
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
