// SPDX-License-Identifier: GPL-3.0-or-later
#include "errormanager.h"

#include "logging.h"
#include "webhooksender.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace Broker {

namespace {
constexpr qint64 NotificationIntervalMs = 60'000;

// Records of one kind fold into one: same severity, component and code. The message is not part
// of the kind (it may carry a countdown, an address, a count), so the latest text is kept. A
// record without a code has nothing else to be told apart by than its message.
QString keyOf(Severity severity, const QString &component, const QString &code, const QString &message)
{
    return QString::number(int(severity)) + QChar(0) + component + QChar(0) + code + QChar(0)
        + (code.isEmpty() ? message : QString());
}
} // namespace

ErrorManager::ErrorManager(const Clock &clock, int capacity, QObject *parent)
    : QObject(parent), m_clock(clock), m_capacity(qMax(1, capacity))
{
}

ErrorManager::~ErrorManager() = default;

void ErrorManager::setWebhook(const WebhookOptions &options, const QString &brokerName)
{
    m_brokerName = brokerName;
    m_webhook = std::make_unique<WebhookSender>(options, m_clock);
}

std::optional<WebhookStatus> ErrorManager::webhookStatus() const
{
    if (!m_webhook)
        return std::nullopt;
    return m_webhook->status();
}

QByteArray ErrorManager::notificationJson(const ErrorRecord &record, const QString &brokerName)
{
    QJsonObject json;
    json.insert(QStringLiteral("broker"), brokerName);
    json.insert(QStringLiteral("id"), qint64(record.id));
    json.insert(QStringLiteral("severity"), QString::fromLatin1(severityName(record.severity)));
    json.insert(QStringLiteral("component"), record.component);
    json.insert(QStringLiteral("code"), record.code);
    json.insert(QStringLiteral("message"), record.message);
    json.insert(QStringLiteral("count"), record.count);
    json.insert(QStringLiteral("first_seen"), double(record.firstMs) / 1000.0);
    json.insert(QStringLiteral("last_seen"), double(record.lastMs) / 1000.0);
    return QJsonDocument(json).toJson(QJsonDocument::Compact);
}

QString ErrorManager::redactSecrets(const QString &text)
{
    // "api_key=...", "X-API-Key: ...", "password: ..." and bare tokens of 32+ key characters.
    static const QRegularExpression named(
        QStringLiteral(R"((api[_-]?key|password|secret|token|auth)(["']?\s*[:=]\s*["']?)[^\s"',;&]+)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression bare(QStringLiteral(R"([A-Za-z0-9_\-+/]{32,}={0,2})"));
    QString out = text;
    out.replace(named, QStringLiteral("\\1\\2[redacted]"));
    out.replace(bare, QStringLiteral("[redacted]"));
    return out;
}

namespace {

void logLine(Severity severity, const QString &line)
{
    switch (severity) {
    case Severity::Info: qCInfo(lcErrors).noquote() << line; break;
    case Severity::Warning: qCWarning(lcErrors).noquote() << line; break;
    case Severity::Error:
    case Severity::Critical: qCCritical(lcErrors).noquote() << line; break;
    }
}

} // namespace

void ErrorManager::record(Severity severity, const QString &component, const QString &code, const QString &rawMessage)
{
    const QString message = redactSecrets(rawMessage);
    const qint64 now = m_clock.nowMs();
    const QString key = keyOf(severity, component, code, message);
    m_totals[int(severity)] += 1;

    Records::iterator it;
    if (const auto found = m_byKey.constFind(key); found != m_byKey.cend()) {
        it = found.value();
        ++it->count;
        it->lastMs = now;
        it->message = message;
        m_records.splice(m_records.begin(), m_records, it); // most recent first
    } else {
        m_records.push_front(ErrorRecord{m_nextId++, severity, component, code, message, now, now, 1});
        it = m_records.begin();
        m_byKey.insert(key, it);
        while (int(m_records.size()) > m_capacity) {
            const ErrorRecord &oldest = m_records.back();
            const QString oldestKey = keyOf(oldest.severity, oldest.component, oldest.code, oldest.message);
            m_byKey.remove(oldestKey);
            m_lastNotifiedMs.remove(oldestKey);
            m_lastLogged.remove(oldestKey);
            m_records.pop_back();
        }
    }

    Logged &logged = m_lastLogged[key];
    const bool log = !logged.any || now - logged.atMs >= LogIntervalMs;
    const qint64 unlogged = it->count - logged.count - 1; // repeats since the last line
    if (log) {
        logged = Logged{true, now, it->count};
        logLine(severity, QStringLiteral("[%1] %2%3%4")
                              .arg(component, code.isEmpty() ? QString() : code + QStringLiteral(": "), message,
                                   unlogged > 0 ? QStringLiteral(" (and %1 more like it since the last line)").arg(unlogged) : QString()));
    }

    const ErrorRecord snapshot = *it;
    Q_EMIT errorRecorded(snapshot);
    if (m_notified.contains(severity)) {
        qint64 &last = m_lastNotifiedMs[key];
        if (last == 0 || now - last >= NotificationIntervalMs) {
            last = now;
            Q_EMIT notificationRaised(snapshot);
            if (m_webhook)
                m_webhook->post(notificationJson(snapshot, m_brokerName));
        }
    }
}

QList<ErrorRecord> ErrorManager::recent(int limit) const
{
    QList<ErrorRecord> out;
    for (const ErrorRecord &record : m_records) {
        if (limit >= 0 && out.size() >= limit)
            break;
        out.append(record);
    }
    return out;
}

} // namespace Broker
