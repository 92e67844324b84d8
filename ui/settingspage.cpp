// SPDX-License-Identifier: GPL-3.0-or-later
#include "settingspage.h"

#include "confirm.h"
#include "problembanner.h"
#include "tlssettingsform.h"

#include "runtime/continuation.h"
#include "palette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHostAddress>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace Broker::Ui {

namespace {

QSpinBox *spinBox(int minimum, int maximum, const QString &suffix)
{
    auto *box = new QSpinBox;
    box->setRange(minimum, maximum);
    box->setSuffix(suffix);
    box->setGroupSeparatorShown(true);
    return box;
}

QString onOff(bool value)
{
    return value ? QStringLiteral("on") : QStringLiteral("off");
}

} // namespace

SettingsPage::SettingsPage(BrokerClient &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    // The form keeps a readable width on wide windows.
    auto *outer = new QHBoxLayout(this);
    auto *column = new QWidget;
    column->setMaximumWidth(640);
    outer->addWidget(column, 1);
    outer->addStretch(0);
    auto *layout = new QVBoxLayout(column);
    m_banner = new ProblemBanner;
    m_banner->setObjectName(QStringLiteral("startProblem"));
    layout->addWidget(m_banner);
    m_file = new QLabel;
    m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_file);

    auto *api = new QGroupBox(tr("REST API"));
    auto *apiForm = new QFormLayout(api);
    m_bind = new QLineEdit;
    m_bind->setObjectName(QStringLiteral("bind"));
    m_bind->setToolTip(tr("127.0.0.1 keeps the API on this computer; 0.0.0.0 or :: opens it to the network"));
    apiForm->addRow(tr("Bind address"), m_bind);
    m_port = spinBox(0, 65535, QString());
    m_port->setObjectName(QStringLiteral("port"));
    m_port->setGroupSeparatorShown(false);
    m_port->setSpecialValueText(tr("any free port"));
    apiForm->addRow(tr("Port"), m_port);
    m_portSource = new QLabel;
    m_portSource->setObjectName(QStringLiteral("portSource"));
    m_portSource->setWordWrap(true);
    m_portSource->hide();
    apiForm->addRow(QString(), m_portSource);
    m_plaintextWarning = new QLabel(tr("Open to the network without HTTPS: API keys and messages cross it in clear "
                                       "text. Turn HTTPS on below, or keep the API on 127.0.0.1 behind a TLS proxy."));
    m_plaintextWarning->setObjectName(QStringLiteral("plaintextWarning"));
    m_plaintextWarning->setWordWrap(true);
    Palette::setTextRole(m_plaintextWarning, Palette::ProblemText);
    apiForm->addRow(QString(), m_plaintextWarning);
    layout->addWidget(api);
    m_tls = new TlsSettingsForm(m_client);
    layout->addWidget(m_tls);

    auto *storage = new QGroupBox(tr("Storage"));
    auto *storageForm = new QFormLayout(storage);
    m_backend = new QComboBox;
    m_backend->setObjectName(QStringLiteral("backend"));
    m_backend->addItem(tr("memory (embedded)"), QStringLiteral("memory"));
    m_backend->addItem(tr("Redis (shared by several brokers)"), QStringLiteral("redis"));
    storageForm->addRow(tr("Backend"), m_backend);
    m_redisHost = new QLineEdit;
    m_redisHost->setObjectName(QStringLiteral("redisHost"));
    storageForm->addRow(tr("Redis host"), m_redisHost);
    m_redisPort = spinBox(1, 65535, QString());
    m_redisPort->setObjectName(QStringLiteral("redisPort"));
    m_redisPort->setGroupSeparatorShown(false);
    storageForm->addRow(tr("Redis port"), m_redisPort);
    m_redisDatabase = spinBox(0, 15, QString());
    storageForm->addRow(tr("Database"), m_redisDatabase);
    m_redisPassword = new QLineEdit;
    m_redisPassword->setObjectName(QStringLiteral("redisPassword"));
    m_redisPassword->setEchoMode(QLineEdit::Password);
    m_redisPassword->setToolTip(tr("Leave empty to keep the password in force"));
    storageForm->addRow(tr("Password"), m_redisPassword);
    m_redisPrefix = new QLineEdit;
    m_redisPrefix->setToolTip(tr("Every key starts with it; brokers that share queues use the same prefix"));
    storageForm->addRow(tr("Key prefix"), m_redisPrefix);
    auto *testRow = new QHBoxLayout;
    m_testRedis = new QPushButton(tr("Test connection"));
    m_testRedis->setObjectName(QStringLiteral("testRedis"));
    m_testRedis->setToolTip(tr("Connects to this Redis server (with the password and database above) and asks it for "
                               "its version; nothing is changed"));
    m_redisResult = new QLabel;
    m_redisResult->setObjectName(QStringLiteral("redisResult"));
    m_redisResult->setWordWrap(true);
    m_redisResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    testRow->addWidget(m_testRedis);
    testRow->addWidget(m_redisResult, 1);
    storageForm->addRow(QString(), testRow);
    m_journal = new QCheckBox(tr("Keep queued messages across restarts and crashes (journal)"));
    m_journal->setObjectName(QStringLiteral("journal"));
    storageForm->addRow(QString(), m_journal);
    m_fsync = new QComboBox;
    m_fsync->addItem(tr("once a second (a crash may lose the last second)"), QStringLiteral("everysec"));
    m_fsync->addItem(tr("always (every change on disk before it is answered)"), QStringLiteral("always"));
    m_fsync->addItem(tr("when the system likes"), QStringLiteral("no"));
    storageForm->addRow(tr("Sync to disk"), m_fsync);
    layout->addWidget(storage);

    auto *limits = new QGroupBox(tr("Limits"));
    auto *limitsForm = new QFormLayout(limits);
    m_maxBody = spinBox(1, 1024 * 1024, tr(" KiB"));
    limitsForm->addRow(tr("Request body"), m_maxBody);
    m_maxMessage = spinBox(1, 1024 * 1024, tr(" KiB"));
    limitsForm->addRow(tr("One message"), m_maxMessage);
    m_maxConnections = spinBox(1, 100000, QString());
    limitsForm->addRow(tr("Connections"), m_maxConnections);
    auto *rateRow = new QHBoxLayout;
    m_rateLimit = new QCheckBox(tr("Limit each API key to"));
    m_requestsPerMinute = spinBox(1, 10'000'000, tr(" requests/min"));
    rateRow->addWidget(m_rateLimit);
    rateRow->addWidget(m_requestsPerMinute, 1);
    limitsForm->addRow(tr("Rate limit"), rateRow);
    layout->addWidget(limits);

    m_problem = new QLabel;
    Palette::setTextRole(m_problem, Palette::ProblemText);
    layout->addWidget(m_problem);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    m_revert = new QPushButton(tr("Revert"));
    m_apply = new QPushButton(tr("Apply and restart broker"));
    m_revert->setToolTip(tr("Put the form back to the settings in force"));
    m_apply->setObjectName(QStringLiteral("apply"));
    buttons->addWidget(m_revert);
    buttons->addWidget(m_apply);
    layout->addLayout(buttons);
    layout->addStretch(1);

    connect(m_revert, &QPushButton::clicked, this, [this] { showConfig(m_config, m_file->toolTip()); });
    connect(m_apply, &QPushButton::clicked, this, &SettingsPage::apply);
    connect(m_testRedis, &QPushButton::clicked, this, &SettingsPage::testRedisConnection);
    for (QSpinBox *box : {m_port, m_maxBody, m_maxMessage, m_maxConnections, m_requestsPerMinute})
        connect(box, &QSpinBox::valueChanged, this, &SettingsPage::updateState);
    for (QLineEdit *edit : {m_bind, m_redisHost, m_redisPassword, m_redisPrefix})
        connect(edit, &QLineEdit::textChanged, this, &SettingsPage::updateState);
    for (QSpinBox *box : {m_redisPort, m_redisDatabase})
        connect(box, &QSpinBox::valueChanged, this, &SettingsPage::updateState);
    // A result is about the address it was for.
    for (QLineEdit *edit : {m_redisHost, m_redisPassword})
        connect(edit, &QLineEdit::textChanged, m_redisResult, &QLabel::clear);
    for (QSpinBox *box : {m_redisPort, m_redisDatabase})
        connect(box, &QSpinBox::valueChanged, m_redisResult, &QLabel::clear);
    connect(m_backend, &QComboBox::currentIndexChanged, this, &SettingsPage::updateState);
    connect(m_fsync, &QComboBox::currentIndexChanged, this, &SettingsPage::updateState);
    connect(m_journal, &QCheckBox::toggled, this, &SettingsPage::updateState);
    connect(m_rateLimit, &QCheckBox::toggled, this, &SettingsPage::updateState);
    connect(m_tls, &TlsSettingsForm::edited, this, &SettingsPage::updateState);
    connect(m_tls, &TlsSettingsForm::reloadRequested, this,
            [this] { Q_EMIT tlsReloadRequested({}, {tr("the same files read again")}); });
    updateState();
}

void SettingsPage::showConfig(const BrokerConfig &config, const QString &configFile)
{
    m_config = config;
    m_file->setText(tr("Saved in %1").arg(configFile));
    m_file->setToolTip(configFile);
    m_tls->setConfigFile(configFile);
    showForm(config);
}

void SettingsPage::showForm(const BrokerConfig &config)
{
    m_bind->setText(config.api.bind);
    m_port->setValue(config.api.port);
    m_tls->showOptions(config.api.tls);
    m_backend->setCurrentIndex(qMax(0, m_backend->findData(storageBackendName(config.storage.backend))));
    m_redisHost->setText(config.storage.redis.host);
    m_redisPort->setValue(config.storage.redis.port);
    m_redisDatabase->setValue(config.storage.redis.database);
    // The password in force is never shown; one that was typed (and tried) stays typed.
    m_redisPassword->setText(config.storage.redis.password == m_config.storage.redis.password
                                 ? QString() : config.storage.redis.password);
    m_redisPassword->setPlaceholderText(m_config.storage.redis.password.isEmpty() ? tr("none") : tr("(set; unchanged)"));
    m_redisPrefix->setText(config.storage.redis.keyPrefix);
    m_journal->setChecked(config.storage.journal.enabled);
    m_fsync->setCurrentIndex(qMax(0, m_fsync->findData(fsyncPolicyName(config.storage.journal.fsync))));
    m_maxBody->setValue(int(config.api.limits.maxBodyBytes / 1024));
    m_maxMessage->setValue(int(config.api.limits.maxMessageBytes / 1024));
    m_maxConnections->setValue(config.api.limits.maxConnections);
    m_rateLimit->setChecked(config.api.rateLimit.enabled);
    m_requestsPerMinute->setValue(config.api.rateLimit.requestsPerMinute);
    updateState();
}

BrokerConfig SettingsPage::edited() const
{
    BrokerConfig config = m_config;
    config.api.bind = m_bind->text().trimmed();
    config.api.port = m_port->value();
    m_tls->edit(config.api.tls);
    config.storage.backend = m_backend->currentData().toString() == QLatin1StringView("redis") ? StorageBackend::Redis
                                                                                               : StorageBackend::Memory;
    config.storage.redis.host = m_redisHost->text().trimmed();
    config.storage.redis.port = m_redisPort->value();
    config.storage.redis.database = m_redisDatabase->value();
    if (!m_redisPassword->text().isEmpty())
        config.storage.redis.password = m_redisPassword->text();
    config.storage.redis.keyPrefix = m_redisPrefix->text();
    config.storage.journal.enabled = m_journal->isChecked();
    for (FsyncPolicy policy : {FsyncPolicy::Always, FsyncPolicy::EverySecond, FsyncPolicy::Never}) {
        if (fsyncPolicyName(policy) == m_fsync->currentData().toString())
            config.storage.journal.fsync = policy;
    }
    config.api.limits.maxBodyBytes = qint64(m_maxBody->value()) * 1024;
    config.api.limits.maxMessageBytes = qint64(m_maxMessage->value()) * 1024;
    config.api.limits.maxConnections = m_maxConnections->value();
    config.api.rateLimit.enabled = m_rateLimit->isChecked();
    config.api.rateLimit.requestsPerMinute = m_requestsPerMinute->value();
    return config;
}

QList<ConfigChange> SettingsPage::changes() const
{
    const BrokerConfig now = edited();
    const BrokerConfig &before = m_config;
    QList<ConfigChange> changed;
    auto compare = [&](const char *key, const QVariant &value, const QVariant &was) {
        if (value != was)
            changed.append(qMakePair(QString::fromLatin1(key), value));
    };
    compare("api.bind", now.api.bind, before.api.bind);
    compare("api.port", now.api.port, before.api.port);
    compare("api.tls.enabled", now.api.tls.enabled, before.api.tls.enabled);
    compare("api.tls.cert_file", now.api.tls.certFile, before.api.tls.certFile);
    compare("api.tls.key_file", now.api.tls.keyFile, before.api.tls.keyFile);
    compare("api.tls.client_ca_file", now.api.tls.clientCaFile, before.api.tls.clientCaFile);
    compare("api.tls.min_version", now.api.tls.minVersion, before.api.tls.minVersion);
    compare("storage.backend", storageBackendName(now.storage.backend), storageBackendName(before.storage.backend));
    compare("storage.redis.host", now.storage.redis.host, before.storage.redis.host);
    compare("storage.redis.port", now.storage.redis.port, before.storage.redis.port);
    compare("storage.redis.database", now.storage.redis.database, before.storage.redis.database);
    compare("storage.redis.password", now.storage.redis.password, before.storage.redis.password);
    compare("storage.redis.key_prefix", now.storage.redis.keyPrefix, before.storage.redis.keyPrefix);
    compare("storage.memory.journal.enabled", now.storage.journal.enabled, before.storage.journal.enabled);
    compare("storage.memory.journal.fsync", fsyncPolicyName(now.storage.journal.fsync), fsyncPolicyName(before.storage.journal.fsync));
    compare("api.limits.max_body_bytes", now.api.limits.maxBodyBytes, before.api.limits.maxBodyBytes);
    compare("api.limits.max_message_bytes", now.api.limits.maxMessageBytes, before.api.limits.maxMessageBytes);
    compare("api.limits.max_connections", now.api.limits.maxConnections, before.api.limits.maxConnections);
    compare("api.rate_limit.enabled", now.api.rateLimit.enabled, before.api.rateLimit.enabled);
    compare("api.rate_limit.requests_per_minute", now.api.rateLimit.requestsPerMinute, before.api.rateLimit.requestsPerMinute);
    return changed;
}

QStringList SettingsPage::describeChanges() const
{
    QStringList lines;
    auto line = [&](const QString &what, const QString &before, const QString &now) {
        if (before != now)
            lines.append(tr("%1: %2 → %3").arg(what, before, now));
    };
    line(tr("bind address"), m_config.api.bind, m_bind->text().trimmed());
    line(tr("port"), QString::number(m_config.api.port), QString::number(m_port->value()));
    const BrokerConfig now = edited();
    line(tr("HTTPS"), onOff(m_config.api.tls.enabled), onOff(now.api.tls.enabled));
    line(tr("certificate"), m_config.api.tls.certFile, now.api.tls.certFile);
    line(tr("key"), m_config.api.tls.keyFile, now.api.tls.keyFile);
    line(tr("client CA"), m_config.api.tls.clientCaFile, now.api.tls.clientCaFile);
    line(tr("lowest TLS version"), m_config.api.tls.minVersion, now.api.tls.minVersion);
    line(tr("storage"), storageBackendName(m_config.storage.backend), m_backend->currentData().toString());
    line(tr("Redis"), QStringLiteral("%1:%2/%3").arg(m_config.storage.redis.host).arg(m_config.storage.redis.port).arg(m_config.storage.redis.database),
         QStringLiteral("%1:%2/%3").arg(m_redisHost->text().trimmed()).arg(m_redisPort->value()).arg(m_redisDatabase->value()));
    if (!m_redisPassword->text().isEmpty() && m_redisPassword->text() != m_config.storage.redis.password)
        lines.append(tr("Redis password: changed")); // never shown
    line(tr("Redis key prefix"), m_config.storage.redis.keyPrefix, m_redisPrefix->text());
    line(tr("journal"), onOff(m_config.storage.journal.enabled), onOff(m_journal->isChecked()));
    line(tr("sync to disk"), fsyncPolicyName(m_config.storage.journal.fsync), m_fsync->currentData().toString());
    line(tr("request body limit"), QStringLiteral("%1 KiB").arg(m_config.api.limits.maxBodyBytes / 1024),
         QStringLiteral("%1 KiB").arg(m_maxBody->value()));
    line(tr("message limit"), QStringLiteral("%1 KiB").arg(m_config.api.limits.maxMessageBytes / 1024),
         QStringLiteral("%1 KiB").arg(m_maxMessage->value()));
    line(tr("connection limit"), QString::number(m_config.api.limits.maxConnections),
         QString::number(m_maxConnections->value()));
    line(tr("rate limit"), onOff(m_config.api.rateLimit.enabled), onOff(m_rateLimit->isChecked()));
    line(tr("requests per minute"), QString::number(m_config.api.rateLimit.requestsPerMinute),
         QString::number(m_requestsPerMinute->value()));
    return lines;
}

void SettingsPage::setBusy(bool busy)
{
    setEnabled(!busy);
}

void SettingsPage::showStart(const StartReport &report)
{
    m_commandLinePort = report.commandLinePort;
    m_configuredPort = report.configuredPort;
    if (report.configLoaded)
        showConfig(report.config, report.configFile);
    showPortSource();
    if (report.ok) {
        m_banner->clear();
        return;
    }
    m_banner->showProblem(tr("<b>The broker did not start.</b> %1").arg(report.error.toHtmlEscaped()));
    offerFixes(report.freePort);
}

void SettingsPage::showApplyFailure(const ApplyReport &report, const BrokerConfig &tried)
{
    QString text = tr("<b>The new settings did not work:</b> %1").arg(report.attempt.error.toHtmlEscaped());
    if (report.rolledBack && report.restored.ok)
        text += tr("<br>The broker runs again on the previous settings (%1). The form still shows what you tried: "
                   "fix it and press Retry, or Revert.").arg(report.restored.apiUrl.toHtmlEscaped());
    else if (report.rolledBack)
        text += tr("<br>The previous settings did not start either: %1").arg(report.restored.error.toHtmlEscaped());
    else
        text += tr("<br>The file keeps its previous settings; the broker is not running.");
    if (!report.restoreError.isEmpty())
        text += tr("<br>The file could not be put back: %1").arg(report.restoreError.toHtmlEscaped());
    showForm(tried);
    m_banner->showProblem(text);
    offerFixes(report.attempt.freePort);
}

void SettingsPage::showApplyError(const QString &message)
{
    m_banner->showProblem(tr("<b>Settings not saved:</b> %1<br>The broker goes on as it was.").arg(message.toHtmlEscaped()));
    offerFixes(0);
}

void SettingsPage::showTlsReloaded(const BrokerConfig &config)
{
    m_banner->clear();
    showConfig(config, m_file->toolTip());
}

void SettingsPage::showTlsReloadFailure(const QString &message)
{
    m_banner->showProblem(tr("<b>The new certificate was not loaded:</b> %1<br>The broker goes on serving the previous "
                             "one, and the file says so again. The form still shows what you tried.")
                              .arg(message.toHtmlEscaped()));
    QPushButton *retry = m_banner->addAction(tr("Retry"), [this] { Q_EMIT tlsReloadRequested(changes(), describeChanges()); });
    retry->setObjectName(QStringLiteral("retry"));
}

void SettingsPage::offerFixes(int freePort)
{
    if (freePort > 0) {
        QPushButton *use = m_banner->addAction(tr("Use port %1").arg(freePort), [this, freePort] {
            m_port->setValue(freePort);
            Q_EMIT applyRequested(changes(), describeChanges());
        });
        use->setObjectName(QStringLiteral("useFreePort"));
        use->setToolTip(tr("Port %1 was free just now: write it into the file and start on it").arg(freePort));
    }
    QPushButton *retry = m_banner->addAction(tr("Retry"), [this] { Q_EMIT applyRequested(changes(), describeChanges()); });
    retry->setObjectName(QStringLiteral("retry"));
    retry->setToolTip(tr("Start the broker again with the settings in the form"));
}

QString SettingsPage::problem() const
{
    return m_banner->text();
}

void SettingsPage::showPortSource()
{
    m_portSource->setVisible(m_commandLinePort >= 0);
    if (m_commandLinePort >= 0)
        m_portSource->setText(tr("Set by --port on the command line; the file says %1. Applying another port writes it "
                                 "into the file.").arg(m_configuredPort));
}

void SettingsPage::apply()
{
    const QList<ConfigChange> changed = changes();
    const QStringList lines = describeChanges();
    const BrokerConfig next = edited();
    if (reloadsTlsOnly()) {
        Q_EMIT tlsReloadRequested(changed, lines);
        return;
    }
    const bool toRedis = m_config.storage.backend == StorageBackend::Memory && next.storage.backend == StorageBackend::Redis;
    if (!toRedis) {
        Q_EMIT applyRequested(changed, lines);
        return;
    }
    // The two stores do not share queues: say so before the memory store's disappear from view.
    const QString left = m_config.storage.journal.enabled
        ? tr("The queues and messages of the memory store stay in its journal: they are not shown while the broker "
             "runs on Redis, and come back when you switch to memory again.")
        : tr("The memory store has no journal: its queues and messages are lost when the broker restarts on Redis.");
    confirmAction(this, tr("Switch to Redis"),
                  tr("Switch the storage to Redis at %1:%2? %3").arg(next.storage.redis.host).arg(next.storage.redis.port).arg(left),
                  [this, changed, lines] { Q_EMIT applyRequested(changed, lines); });
}

bool SettingsPage::reloadsTlsOnly() const
{
    return m_client.state() == BrokerClient::State::Running && BrokerClient::reloadsWithoutRestart(changes(), m_config);
}

void SettingsPage::testRedisConnection()
{
    // The form's address, password and database with the file's ACL user and TLS settings.
    const BrokerConfig config = edited();
    m_testRedis->setEnabled(false);
    m_redisResult->setText(tr("Connecting to %1:%2…").arg(config.storage.redis.host).arg(config.storage.redis.port));
    whenFinished(m_client.testRedis(config, m_file->toolTip()), this, [this](const Result<QString> &answer) {
        m_testRedis->setEnabled(true);
        m_redisResult->setText(answer ? tr("OK: %1").arg(*answer) : tr("Failed: %1").arg(answer.error().message));
    });
}

void SettingsPage::updateState()
{
    m_requestsPerMinute->setEnabled(m_rateLimit->isChecked());
    const bool redis = m_backend->currentData().toString() == QLatin1StringView("redis");
    for (QWidget *field : std::initializer_list<QWidget *>{m_redisHost, m_redisPort, m_redisDatabase, m_redisPassword,
                                                           m_redisPrefix, m_testRedis})
        field->setEnabled(redis);
    m_journal->setEnabled(!redis);
    m_fsync->setEnabled(!redis && m_journal->isChecked());
    QString problem;
    const QString bind = m_bind->text().trimmed();
    if (bind != QLatin1StringView("localhost") && QHostAddress(bind).isNull())
        problem = tr("The bind address must be an IP address such as 127.0.0.1, or localhost");
    else if (redis && m_redisHost->text().trimmed().isEmpty())
        problem = tr("Redis needs a host name or address");
    else if (m_maxMessage->value() > m_maxBody->value())
        problem = tr("One message cannot be larger than a whole request body");
    else
        problem = m_tls->problem();
    m_problem->setText(problem);
    const bool loopback = bind == QLatin1StringView("localhost") || QHostAddress(bind).isLoopback();
    m_plaintextWarning->setVisible(!loopback && !QHostAddress(bind).isNull() && !m_tls->servesHttps());
    const QList<ConfigChange> changed = changes();
    const bool tlsEdited = std::any_of(changed.begin(), changed.end(), [](const ConfigChange &change) {
        return change.first.startsWith(QLatin1StringView("api.tls."));
    });
    m_tls->setReloadable(m_client.state() == BrokerClient::State::Running && m_config.api.tls.enabled && !tlsEdited);
    const bool reload = reloadsTlsOnly();
    m_apply->setText(reload ? tr("Apply (reload the certificate)") : tr("Apply and restart broker"));
    m_apply->setToolTip(reload ? tr("Write the changes to the configuration file and serve the new certificate to new "
                                    "connections; open connections and queues are not touched")
                               : tr("Write the changes to the configuration file and restart the broker with them"));
    m_apply->setEnabled(problem.isEmpty() && !changed.isEmpty());
    m_revert->setEnabled(!changed.isEmpty());
}

} // namespace Broker::Ui
