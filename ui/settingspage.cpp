// SPDX-License-Identifier: GPL-3.0-or-later
#include "settingspage.h"

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

SettingsPage::SettingsPage(QWidget *parent) : QWidget(parent)
{
    // The form keeps a readable width on wide windows.
    auto *outer = new QHBoxLayout(this);
    auto *column = new QWidget;
    column->setMaximumWidth(640);
    outer->addWidget(column, 1);
    outer->addStretch(0);
    auto *layout = new QVBoxLayout(column);
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
    layout->addWidget(api);

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
    m_redisPassword->setEchoMode(QLineEdit::Password);
    m_redisPassword->setToolTip(tr("Leave empty to keep the password in force"));
    storageForm->addRow(tr("Password"), m_redisPassword);
    m_redisPrefix = new QLineEdit;
    m_redisPrefix->setToolTip(tr("Every key starts with it; brokers that share queues use the same prefix"));
    storageForm->addRow(tr("Key prefix"), m_redisPrefix);
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
    m_apply->setToolTip(tr("Write the changes to the configuration file and restart the broker with them"));
    m_apply->setObjectName(QStringLiteral("apply"));
    buttons->addWidget(m_revert);
    buttons->addWidget(m_apply);
    layout->addLayout(buttons);
    layout->addStretch(1);

    connect(m_revert, &QPushButton::clicked, this, [this] { showConfig(m_config, m_file->toolTip()); });
    connect(m_apply, &QPushButton::clicked, this, [this] { Q_EMIT applyRequested(changes(), describeChanges()); });
    for (QSpinBox *box : {m_port, m_maxBody, m_maxMessage, m_maxConnections, m_requestsPerMinute})
        connect(box, &QSpinBox::valueChanged, this, &SettingsPage::updateState);
    for (QLineEdit *edit : {m_bind, m_redisHost, m_redisPassword, m_redisPrefix})
        connect(edit, &QLineEdit::textChanged, this, &SettingsPage::updateState);
    for (QSpinBox *box : {m_redisPort, m_redisDatabase})
        connect(box, &QSpinBox::valueChanged, this, &SettingsPage::updateState);
    connect(m_backend, &QComboBox::currentIndexChanged, this, &SettingsPage::updateState);
    connect(m_fsync, &QComboBox::currentIndexChanged, this, &SettingsPage::updateState);
    connect(m_journal, &QCheckBox::toggled, this, &SettingsPage::updateState);
    connect(m_rateLimit, &QCheckBox::toggled, this, &SettingsPage::updateState);
    updateState();
}

void SettingsPage::showConfig(const BrokerConfig &config, const QString &configFile)
{
    m_config = config;
    m_file->setText(tr("Saved in %1").arg(configFile));
    m_file->setToolTip(configFile);
    m_bind->setText(config.api.bind);
    m_port->setValue(config.api.port);
    m_backend->setCurrentIndex(qMax(0, m_backend->findData(storageBackendName(config.storage.backend))));
    m_redisHost->setText(config.storage.redis.host);
    m_redisPort->setValue(config.storage.redis.port);
    m_redisDatabase->setValue(config.storage.redis.database);
    m_redisPassword->clear();
    m_redisPassword->setPlaceholderText(config.storage.redis.password.isEmpty() ? tr("none") : tr("(set; unchanged)"));
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

QList<ConfigChange> SettingsPage::changes() const
{
    QList<ConfigChange> changed;
    auto compare = [&](const char *key, const QVariant &now, const QVariant &before) {
        if (now != before)
            changed.append(qMakePair(QString::fromLatin1(key), now));
    };
    compare("api.bind", m_bind->text().trimmed(), m_config.api.bind);
    compare("api.port", m_port->value(), m_config.api.port);
    compare("storage.backend", m_backend->currentData().toString(), storageBackendName(m_config.storage.backend));
    compare("storage.redis.host", m_redisHost->text().trimmed(), m_config.storage.redis.host);
    compare("storage.redis.port", m_redisPort->value(), m_config.storage.redis.port);
    compare("storage.redis.database", m_redisDatabase->value(), m_config.storage.redis.database);
    if (!m_redisPassword->text().isEmpty())
        compare("storage.redis.password", m_redisPassword->text(), m_config.storage.redis.password);
    compare("storage.redis.key_prefix", m_redisPrefix->text(), m_config.storage.redis.keyPrefix);
    compare("storage.memory.journal.enabled", m_journal->isChecked(), m_config.storage.journal.enabled);
    compare("storage.memory.journal.fsync", m_fsync->currentData().toString(), fsyncPolicyName(m_config.storage.journal.fsync));
    compare("api.limits.max_body_bytes", qint64(m_maxBody->value()) * 1024, m_config.api.limits.maxBodyBytes);
    compare("api.limits.max_message_bytes", qint64(m_maxMessage->value()) * 1024, m_config.api.limits.maxMessageBytes);
    compare("api.limits.max_connections", m_maxConnections->value(), m_config.api.limits.maxConnections);
    compare("api.rate_limit.enabled", m_rateLimit->isChecked(), m_config.api.rateLimit.enabled);
    compare("api.rate_limit.requests_per_minute", m_requestsPerMinute->value(), m_config.api.rateLimit.requestsPerMinute);
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

void SettingsPage::updateState()
{
    m_requestsPerMinute->setEnabled(m_rateLimit->isChecked());
    const bool redis = m_backend->currentData().toString() == QLatin1StringView("redis");
    for (QWidget *field : std::initializer_list<QWidget *>{m_redisHost, m_redisPort, m_redisDatabase, m_redisPassword, m_redisPrefix})
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
    m_problem->setText(problem);
    const bool changed = !changes().isEmpty();
    m_apply->setEnabled(problem.isEmpty() && changed);
    m_revert->setEnabled(changed);
}

} // namespace Broker::Ui
