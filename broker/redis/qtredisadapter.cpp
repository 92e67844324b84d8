// SPDX-License-Identifier: GPL-3.0-or-later
#include "qtredisadapter.h"

#include <QSocketNotifier>

#include <hiredis/async.h>

namespace Broker::Redis {

QtRedisAdapter::~QtRedisAdapter()
{
    detach();
}

bool QtRedisAdapter::attach(redisAsyncContext *context)
{
    if (context->ev.data != nullptr || m_context != nullptr)
        return false;
    m_context = context;
    context->ev.data = this;
    context->ev.addRead = &QtRedisAdapter::addRead;
    context->ev.delRead = &QtRedisAdapter::delRead;
    context->ev.addWrite = &QtRedisAdapter::addWrite;
    context->ev.delWrite = &QtRedisAdapter::delWrite;
    context->ev.cleanup = &QtRedisAdapter::cleanup;
    return true;
}

void QtRedisAdapter::detach()
{
    if (m_context) {
        m_context->ev = {};
        m_context = nullptr;
    }
    release(m_read);
    release(m_write);
}

void QtRedisAdapter::release(QSocketNotifier *&notifier)
{
    if (!notifier)
        return;
    notifier->setEnabled(false);
    notifier->deleteLater();
    notifier = nullptr;
}

QSocketNotifier *QtRedisAdapter::notifier(QSocketNotifier *&slot, int type)
{
    if (!slot) {
        slot = new QSocketNotifier(m_context->c.fd, QSocketNotifier::Type(type));
        const bool reading = type == QSocketNotifier::Read;
        QObject::connect(slot, &QSocketNotifier::activated, slot, [this, reading] {
            if (!m_context)
                return;
            if (reading)
                redisAsyncHandleRead(m_context);
            else
                redisAsyncHandleWrite(m_context);
        });
    }
    return slot;
}

// hiredis asks for write interest around every command: the notifiers are made once per
// connection and only switched on and off.
void QtRedisAdapter::addRead(void *self)
{
    auto *adapter = static_cast<QtRedisAdapter *>(self);
    if (adapter->m_context)
        adapter->notifier(adapter->m_read, QSocketNotifier::Read)->setEnabled(true);
}

void QtRedisAdapter::delRead(void *self)
{
    if (QSocketNotifier *read = static_cast<QtRedisAdapter *>(self)->m_read)
        read->setEnabled(false);
}

void QtRedisAdapter::addWrite(void *self)
{
    auto *adapter = static_cast<QtRedisAdapter *>(self);
    if (adapter->m_context)
        adapter->notifier(adapter->m_write, QSocketNotifier::Write)->setEnabled(true);
}

void QtRedisAdapter::delWrite(void *self)
{
    if (QSocketNotifier *write = static_cast<QtRedisAdapter *>(self)->m_write)
        write->setEnabled(false);
}

void QtRedisAdapter::cleanup(void *self)
{
    // hiredis is about to free the context: forget it, never touch it again.
    auto *adapter = static_cast<QtRedisAdapter *>(self);
    adapter->m_context = nullptr;
    adapter->release(adapter->m_read);
    adapter->release(adapter->m_write);
}

} // namespace Broker::Redis
