// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"
#include "core/httpoptions.h"
#include "errors/errormanager.h"
#include "security/ratelimiter.h"

#include <QHash>
#include <QObject>
#include <QTimer>

namespace Broker::Rest {

// Throttles guessing of API keys per client address, and reports it without flooding the log.
//
// Only failures count: `failuresPerMinute` invalid keys per address (and as many at once), then
// that address is answered 429 with Retry-After = the whole seconds until one more attempt would
// be checked (at least 1). A valid key is not locked out with its address, so that an attacker
// behind the same NAT or on the same host cannot shut the administrator out: while the address
// is throttled, a presented key of at least StrongKeyLength characters is still checked and
// passes when it is valid. A shorter key is not checked then (429 either way): a 429-or-200
// answer would otherwise let a throttled client go on testing guessable keys at full speed.
// Keys the broker generates are 46 characters; operator-chosen keys should be as long.
//
// Reporting: the first failure or throttled attempt after a quiet interval is recorded at once
// (ErrorManager, component "security"); what follows within `logInterval` is folded into one
// summary record at the interval's end, so a flood of attempts writes a line per interval.
class AuthThrottle : public QObject
{
    Q_OBJECT
public:
    static constexpr qsizetype StrongKeyLength = 32;

    using Options = AuthThrottleOptions;
    // Whether a key presented from an address is checked, and what a refusal says.
    struct Gate
    {
        bool throttled = false;
        bool checkKey = true;
        int retryAfterSeconds = 0; // when throttled
    };

    AuthThrottle(const Clock &clock, ErrorManager &errors, const Options &options, QObject *parent = nullptr);

    Gate gate(const QString &address, qsizetype presentedKeyLength) const;
    // A key from `address` was checked and is not valid: one failure counted.
    void failed(const QString &address);
    // A request from `address` was answered 429.
    void refusedWhileThrottled(const QString &address);

    // Records what was counted since the last record (the interval timer calls this).
    void flushSummary();

private:
    struct Counts
    {
        qint64 failed = 0;
        qint64 throttled = 0;
    };
    void note(const QString &address, bool throttled);

    RateLimiter m_failures; // per client address
    ErrorManager &m_errors;
    Options m_options;
    QTimer m_interval;
    QHash<QString, Counts> m_counts; // this interval's, per address (bounded)
    Counts m_total;                  // this interval's, all addresses
    qint64 m_uncountedAddresses = 0; // beyond the bound
};

} // namespace Broker::Rest
