// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"
#include "core/errorrecord.h"
#include "core/webhookstatus.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <list>
#include <memory>
#include <optional>

namespace Broker {

class WebhookSender;
struct WebhookOptions;

// Keeps the recent errors of the broker: a bounded log where repeats of a kind are counted
// instead of stored again, totals per severity, log lines (QLoggingCategory), and a notification
// signal for the UI tray and webhooks. Lives in the engine's thread.
//
// Logging is rate-limited per kind: the first record of a kind is logged at once, repeats within
// LogIntervalMs are only counted, and the next one after the interval is logged with how many
// were not — so a client hammering a failing store (or a full disk) writes a line per interval.
class ErrorManager : public QObject
{
    Q_OBJECT
public:
    // `capacity`: how many distinct records are kept; the oldest goes first.
    explicit ErrorManager(const Clock &clock, int capacity = DefaultErrorRecords, QObject *parent = nullptr);
    ~ErrorManager() override;
    static constexpr qint64 LogIntervalMs = 10'000;

    // Records an error. The message passes through redactSecrets() first.
    void record(Severity severity, const QString &component, const QString &code, const QString &message);

    // Newest first.
    QList<ErrorRecord> recent(int limit = -1) const;
    qint64 total(Severity severity) const { return m_totals.value(int(severity)); }
    int size() const { return int(m_records.size()); }

    // Records of these severities raise notificationRaised, at most once per minute for the same
    // record. Default: error and critical.
    void setNotifiedSeverities(const QList<Severity> &severities) { m_notified = severities; }
    const QList<Severity> &notifiedSeverities() const { return m_notified; }
    int capacity() const { return m_capacity; }

    // Each notification is also POSTed to a webhook (error.webhook_url) as one JSON object
    // (notificationJson), in order, without ever holding up the caller. A webhook that fails is
    // logged, never recorded here: its own notifications would feed it.
    void setWebhook(const WebhookOptions &options, const QString &brokerName);
    std::optional<WebhookStatus> webhookStatus() const;
    static QByteArray notificationJson(const ErrorRecord &record, const QString &brokerName);

    // Replaces anything that looks like a credential (long runs of key alphabet, "key=...") with
    // "[redacted]". A safety net: callers should not pass secrets in the first place.
    static QString redactSecrets(const QString &text);

Q_SIGNALS:
    void errorRecorded(const Broker::ErrorRecord &record);
    void notificationRaised(const Broker::ErrorRecord &record);

private:
    using Records = std::list<ErrorRecord>; // newest at the front
    const Clock &m_clock;
    int m_capacity;
    QList<Severity> m_notified = severitiesFrom(DefaultNotifySeverity);
    quint64 m_nextId = 1;
    Records m_records;
    QHash<QString, Records::iterator> m_byKey;
    QHash<int, qint64> m_totals;
    QHash<QString, qint64> m_lastNotifiedMs;
    struct Logged
    {
        bool any = false;
        qint64 atMs = 0;
        qint64 count = 0; // the kind's count when it was last logged
    };
    QHash<QString, Logged> m_lastLogged;
    std::unique_ptr<WebhookSender> m_webhook;
    QString m_brokerName;
};

} // namespace Broker

