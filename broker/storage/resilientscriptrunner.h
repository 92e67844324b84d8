// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"
#include "redis/redisclient.h"
#include "redis/scriptcache.h"
#include "resilience/circuitbreaker.h"
#include "resilience/retrypolicy.h"

#include <QObject>

#include <functional>
#include <random>

namespace Broker {

// Runs the Redis store's scripts and commands behind a circuit breaker, so that a Redis out of
// reach costs each caller nothing instead of a deadline.
//
// What counts toward the breaker: a call that got no reply (not connected, the pool's wait for a
// connection or the connection's command deadline passed, the connection was lost) records a
// failure. Any reply records a success, error replies included ("QUEUE_FULL ...", "OOM ..."):
// Redis answered, and a refusal is the caller's business. While the breaker is open, calls fail
// at once with Unavailable and detail Redis::NotSent (nothing left this process); once its pause
// is over it lets one call through as the probe, and that call's outcome closes or reopens it.
//
// Scripts go out as FCALL where the server has functions, else as EVALSHA; a missing library or
// script (Redis restarted, FUNCTION or SCRIPT FLUSH, a failover) is loaded again where the call
// went, so callers never see it (Redis::ScriptRunner). Deadlines are
// the pool's: its wait for a connection and each connection's command timeout.
// Retry::Reads calls that got no reply are tried again after the retry policy's delay, each
// attempt through the breaker again; Retry::Never calls (changes) are not: after a timeout their
// outcome is unknown, and a second attempt could apply them twice.
//
// Owns the breaker and the pending retries; the client is not owned and must outlive the runner.
// Single-threaded: use it from the client's thread, where completions run, each exactly once. A
// runner destroyed first drops the completions of its pending retries (as the pool drops those
// of its commands when it goes).
class ResilientScriptRunner
{
public:
    enum class Retry { Never, Reads };
    // Told when the breaker changes state because of a call's outcome; `failure` is the failed
    // call's error text (empty when it succeeded).
    using BreakerObserver = std::function<void(CircuitBreaker::State now, const QString &failure)>;

    ResilientScriptRunner(Redis::RedisClient &client, CircuitBreaker::Options breaker, RetryPolicy readRetry,
                          const Clock &clock);

    // `script` must outlive the call and its retries (the store's script set does). The first key
    // routes the call (Redis::RedisClient::command): calls with the same first key run in the
    // order sent.
    void run(const Redis::Script &script, const QByteArrayList &keys, const QByteArrayList &args, Retry retry,
             Redis::CommandCallback done);
    // One plain command through the breaker, never retried; `key` routes it. A `write` waits for
    // the replicas like a change's script (setReplicaWait).
    void command(const QByteArrayList &args, Redis::CommandCallback done, const QByteArray &key = {}, bool write = false);
    // Changes (Retry::Never scripts, writing commands) wait for this many replicas (Redis::ScriptRunner).
    void setReplicaWait(Redis::ReplicaWait wait) { m_scripts.setReplicaWait(wait); }
    qint64 unreplicated() const { return m_scripts.unreplicated(); }

    void setBreakerObserver(BreakerObserver observer) { m_observer = std::move(observer); }
    const CircuitBreaker &breaker() const { return m_breaker; }
    const RetryPolicy &readRetry() const { return m_readRetry; }
    qint64 reloads() const { return m_scripts.reloads(); } // libraries loaded, NOSCRIPT replies answered by EVAL
    Redis::ScriptRunner::Functions functions() const { return m_scripts.functions(); }

private:
    void attempt(const Redis::Script &script, const QByteArrayList &keys, const QByteArrayList &args, Retry retry,
                 int attemptNumber, Redis::CommandCallback done);
    // Records the outcome of a call that was let through, and tells the observer of a change.
    void record(const Redis::CommandResult &result);

    Redis::ScriptRunner m_scripts;
    CircuitBreaker m_breaker;
    const RetryPolicy m_readRetry;
    const Clock &m_clock;
    std::mt19937_64 m_random; // jitter of the retry delays
    BreakerObserver m_observer;
    QObject m_retryTimers; // context of the pending retries: they never fire after the runner is gone
};

} // namespace Broker
