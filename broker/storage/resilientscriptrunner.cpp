// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilientscriptrunner.h"

#include "errors/logging.h"

#include <QRandomGenerator>
#include <QTimer>

#include <algorithm>

namespace Broker {

using Redis::CommandCallback;
using Redis::CommandResult;
using Redis::Script;

ResilientScriptRunner::ResilientScriptRunner(Redis::RedisClient &client, CircuitBreaker::Options breaker,
                                             RetryPolicy readRetry, const Clock &clock)
    : m_scripts(client), m_breaker(breaker, clock), m_readRetry(readRetry), m_clock(clock),
      m_random(QRandomGenerator::global()->generate64())
{
}

void ResilientScriptRunner::run(const Script &script, const QByteArrayList &keys, const QByteArrayList &args,
                                Retry retry, CommandCallback done)
{
    attempt(script, keys, args, retry, 1, std::move(done));
}

void ResilientScriptRunner::attempt(const Script &script, const QByteArrayList &keys, const QByteArrayList &args,
                                    Retry retry, int attemptNumber, CommandCallback done)
{
    if (!m_breaker.allowRequest()) {
        const qint64 waitMs = std::max<qint64>(0, m_breaker.retryAtMs() - m_clock.nowMs());
        return done(Error{ErrorCode::Unavailable,
                          QStringLiteral("Redis is unavailable (circuit breaker open; next attempt in %1 s)")
                              .arg((waitMs + 999) / 1000),
                          Redis::NotSent});
    }
    m_scripts.run(
        script, keys, args,
        [this, &script, keys, args, retry, attemptNumber, done = std::move(done)](CommandResult result) mutable {
            record(result);
            if (result)
                return done(std::move(result));
            qCDebug(lcStorage) << "Redis call" << script.name << "failed:" << result.error().message;
            if (retry == Retry::Never || !m_readRetry.allowsAnotherAttempt(attemptNumber))
                return done(std::move(result));
            const qint64 delay = m_readRetry.delayMs(attemptNumber, m_random);
            QTimer::singleShot(int(delay), &m_retryTimers,
                               [this, &script, keys, args, retry, attemptNumber, done]() mutable {
                                   attempt(script, keys, args, retry, attemptNumber + 1, std::move(done));
                               });
        },
        retry == Retry::Never); // changes wait for the replicas, reads do not
}

void ResilientScriptRunner::command(const QByteArrayList &args, CommandCallback done, const QByteArray &key, bool write)
{
    if (!m_breaker.allowRequest())
        return done(Error{ErrorCode::Unavailable, QStringLiteral("Redis is unavailable (circuit breaker open)"),
                          Redis::NotSent});
    m_scripts.command(
        args,
        [this, done = std::move(done)](CommandResult result) mutable {
            record(result);
            done(std::move(result));
        },
        key, write);
}

void ResilientScriptRunner::record(const CommandResult &result)
{
    const CircuitBreaker::State before = m_breaker.state();
    if (result)
        m_breaker.recordSuccess();
    else
        m_breaker.recordFailure();
    const CircuitBreaker::State after = m_breaker.state();
    if (after != before && m_observer)
        m_observer(after, result ? QString() : result.error().message);
}

} // namespace Broker
