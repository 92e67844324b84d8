// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queuestore.h"

#include <QString>
#include <QTimer>

#include <limits>
#include <list>
#include <memory>
#include <unordered_map>

namespace Broker {

// Consumers waiting for messages (long polling), per queue, first come first served. Each waiter
// has a timer of its own that answers it with an empty list when its wait is over; nothing polls.
class WaitList
{
public:
    struct Waiter
    {
        quint64 id = 0;
        QString queue;
        ConsumeRequest request;
        Completion<QList<Message>> done;
        std::unique_ptr<QTimer> timer;
        bool busy = false; // a consume attempt for it is running
    };

    WaitList() = default;
    ~WaitList();
    WaitList(const WaitList &) = delete;
    WaitList &operator=(const WaitList &) = delete;

    // Parks a consumer for `waitMs`; when the time is up it is answered with an empty list.
    void park(const QString &queue, const ConsumeRequest &request, qint64 waitMs, Completion<QList<Message>> done);
    bool hasIdleWaiter(const QString &queue) const;
    // Marks the first idle waiter of `queue` busy and returns its id and request (0 when none).
    quint64 claimFirst(const QString &queue, ConsumeRequest &request);
    // The consume attempt for a claimed waiter found nothing: it keeps waiting (if time is left).
    void release(quint64 id);
    // Removes a claimed waiter and answers it.
    void complete(quint64 id, Result<QList<Message>> result);
    // Answers every waiter of `queue` (all queues when empty) with `error`.
    void failAll(const QString &queue, const Error &error);
    // Answers every waiter with an empty list, as if its wait had ended (shutdown).
    void finishAll();

private:
    using WaiterList = std::list<Waiter>;
    WaiterList::iterator locate(quint64 id);
    void completeAll(const QString &queue, const Result<QList<Message>> &result);
    void timeout(quint64 id);

    quint64 m_nextId = 1;
    std::unordered_map<QString, WaiterList> m_byQueue;
    std::unordered_map<quint64, QString> m_queueOf;
};

} // namespace Broker
