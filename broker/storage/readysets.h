// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "readyset.h"

#include <deque>
#include <functional>
#include <map>

namespace Broker {

// FIFO: the "list" queue type.
class FifoReadySet final : public ReadySet
{
public:
    void push(StoredMessage &&message) override { m_messages.push_back(std::move(message)); }
    void requeue(StoredMessage &&message) override { m_messages.push_front(std::move(message)); }
    bool pop(StoredMessage &out) override;
    qint64 size() const override { return qint64(m_messages.size()); }
    void forEach(const std::function<bool(const StoredMessage &)> &visit) const override;
    void removeIf(const std::function<bool(const StoredMessage &)> &take, std::vector<StoredMessage> &out) override;
    void takeExpired(qint64 cutoffMs, std::vector<StoredMessage> &out) override;
    void clear() override { std::deque<StoredMessage>().swap(m_messages); }

private:
    std::deque<StoredMessage> m_messages;
};

// Higher priority first, FIFO within one priority: the "priority" queue type.
class PriorityReadySet final : public ReadySet
{
public:
    void push(StoredMessage &&message) override;
    void requeue(StoredMessage &&message) override;
    bool pop(StoredMessage &out) override;
    qint64 size() const override { return m_size; }
    void forEach(const std::function<bool(const StoredMessage &)> &visit) const override;
    void removeIf(const std::function<bool(const StoredMessage &)> &take, std::vector<StoredMessage> &out) override;
    void takeExpired(qint64 cutoffMs, std::vector<StoredMessage> &out) override;
    void clear() override;

private:
    std::map<qint32, std::deque<StoredMessage>, std::greater<>> m_levels;
    qint64 m_size = 0;
};

} // namespace Broker
