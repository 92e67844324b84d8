// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

struct redisAsyncContext;
class QSocketNotifier;

namespace Broker::Redis {

// Drives a hiredis async context from the Qt event loop of the thread it is created in.
//
// Written instead of hiredis's adapters/qt.h, whose teardown is a use-after-free: when the server
// drops the connection hiredis frees the context, and that adapter's destructor later writes
// into it. Here the cleanup hook forgets the context, and notifiers are released with
// deleteLater() because the cleanup hook may run inside one of their own activations.
class QtRedisAdapter
{
public:
    QtRedisAdapter() = default;
    ~QtRedisAdapter();
    QtRedisAdapter(const QtRedisAdapter &) = delete;
    QtRedisAdapter &operator=(const QtRedisAdapter &) = delete;

    // Installs the event hooks on `context`; false when it already has an adapter.
    bool attach(redisAsyncContext *context);
    // Removes the hooks, so that hiredis never calls back into this adapter again.
    void detach();
    bool attached() const { return m_context != nullptr; }

private:
    static void addRead(void *self);
    static void delRead(void *self);
    static void addWrite(void *self);
    static void delWrite(void *self);
    static void cleanup(void *self);

    QSocketNotifier *notifier(QSocketNotifier *&slot, int type);
    void release(QSocketNotifier *&notifier);

    redisAsyncContext *m_context = nullptr;
    QSocketNotifier *m_read = nullptr;
    QSocketNotifier *m_write = nullptr;
};

} // namespace Broker::Redis
