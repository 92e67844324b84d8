// SPDX-License-Identifier: GPL-3.0-or-later
#include "waitlist.h"

namespace Broker {

WaitList::~WaitList()
{
    finishAll();
}

void WaitList::park(const QString &queue, const ConsumeRequest &request, qint64 waitMs,
                    Completion<QList<Message>> done)
{
    const quint64 id = m_nextId++;
    Waiter waiter;
    waiter.id = id;
    waiter.queue = queue;
    waiter.request = request;
    waiter.done = std::move(done);
    waiter.timer = std::make_unique<QTimer>();
    waiter.timer->setSingleShot(true);
    waiter.timer->setTimerType(Qt::PreciseTimer);
    QObject::connect(waiter.timer.get(), &QTimer::timeout, [this, id] { timeout(id); });
    waiter.timer->start(int(qMin<qint64>(waitMs, std::numeric_limits<int>::max())));
    m_byQueue[queue].push_back(std::move(waiter));
    m_queueOf.emplace(id, queue);
}

WaitList::WaiterList::iterator WaitList::locate(quint64 id)
{
    const auto queue = m_queueOf.find(id);
    WaiterList &list = m_byQueue[queue->second];
    for (auto it = list.begin(); it != list.end(); ++it) {
        if (it->id == id)
            return it;
    }
    return list.end(); // not reached: m_queueOf and m_byQueue agree
}

bool WaitList::hasIdleWaiter(const QString &queue) const
{
    const auto it = m_byQueue.find(queue);
    if (it == m_byQueue.end())
        return false;
    for (const Waiter &waiter : it->second) {
        if (!waiter.busy)
            return true;
    }
    return false;
}

quint64 WaitList::claimFirst(const QString &queue, ConsumeRequest &request)
{
    const auto it = m_byQueue.find(queue);
    if (it == m_byQueue.end())
        return 0;
    for (Waiter &waiter : it->second) {
        if (!waiter.busy) {
            waiter.busy = true;
            request = waiter.request;
            return waiter.id;
        }
    }
    return 0;
}

void WaitList::release(quint64 id)
{
    if (!m_queueOf.contains(id))
        return;
    const auto it = locate(id);
    it->busy = false;
    if (!it->timer->isActive()) // the time ran out while the attempt was running
        complete(id, QList<Message>{});
}

void WaitList::complete(quint64 id, Result<QList<Message>> result)
{
    const auto queue = m_queueOf.find(id);
    if (queue == m_queueOf.end())
        return;
    const QString name = queue->second;
    const auto it = locate(id);
    Completion<QList<Message>> done = std::move(it->done);
    m_byQueue[name].erase(it);
    if (m_byQueue[name].empty())
        m_byQueue.erase(name);
    m_queueOf.erase(id);
    done(std::move(result)); // last: it may park a new waiter
}

void WaitList::timeout(quint64 id)
{
    if (!m_queueOf.contains(id))
        return;
    if (locate(id)->busy)
        return; // release() answers it when the running attempt ends
    complete(id, QList<Message>{});
}

void WaitList::failAll(const QString &queue, const Error &error)
{
    completeAll(queue, error);
}

void WaitList::finishAll()
{
    completeAll({}, QList<Message>{});
}

void WaitList::completeAll(const QString &queue, const Result<QList<Message>> &result)
{
    std::vector<quint64> ids;
    for (const auto &[name, list] : m_byQueue) {
        if (!queue.isEmpty() && name != queue)
            continue;
        for (const Waiter &waiter : list)
            ids.push_back(waiter.id);
    }
    for (quint64 id : ids)
        complete(id, result);
}

} // namespace Broker
