// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionquota.h"

#include <algorithm>
#include <iterator>

namespace Broker::Rest {

namespace {

QHostAddress unmapped(const QHostAddress &peer)
{
    bool isV4 = false;
    const quint32 v4 = peer.toIPv4Address(&isV4); // also takes ::ffff:a.b.c.d apart
    return isV4 ? QHostAddress(v4) : peer;
}

} // namespace

QByteArray ConnectionQuota::clientKey(const QHostAddress &peer)
{
    const QHostAddress address = unmapped(peer);
    if (address.protocol() == QAbstractSocket::IPv4Protocol) {
        const quint32 v4 = address.toIPv4Address();
        return QByteArray("4") + QByteArray(reinterpret_cast<const char *>(&v4), sizeof v4);
    }
    const Q_IPV6ADDR v6 = address.toIPv6Address();
    // ::1 is one host of its own; any other IPv6 client is its /64.
    const int bytes = address.isLoopback() ? 16 : 8;
    return QByteArray("6") + QByteArray(reinterpret_cast<const char *>(v6.c), bytes);
}

QString ConnectionQuota::clientLabel(const QHostAddress &peer)
{
    const QHostAddress address = unmapped(peer);
    if (address.protocol() == QAbstractSocket::IPv4Protocol || address.isLoopback())
        return address.toString();
    Q_IPV6ADDR prefix = address.toIPv6Address();
    std::fill(std::begin(prefix.c) + 8, std::end(prefix.c), quint8(0));
    return QHostAddress(prefix).toString() + QStringLiteral("/64");
}

int ConnectionQuota::capFor(const QHostAddress &peer) const
{
    return unmapped(peer).isLoopback() ? m_limits.perLoopbackAddress : m_limits.perAddress;
}

ConnectionQuota::Verdict ConnectionQuota::admit(const QHostAddress &peer)
{
    if (m_total >= m_limits.maxConnections)
        return Verdict::ServerFull;
    const QByteArray key = clientKey(peer);
    int &held = m_perClient[key];
    if (held >= capFor(peer)) {
        if (held == 0)
            m_perClient.remove(key);
        return Verdict::AddressFull;
    }
    ++held;
    ++m_total;
    return Verdict::Admitted;
}

void ConnectionQuota::release(const QHostAddress &peer)
{
    const QByteArray key = clientKey(peer);
    const auto it = m_perClient.find(key);
    if (it == m_perClient.end())
        return;
    --m_total;
    if (--it.value() <= 0)
        m_perClient.erase(it);
}

} // namespace Broker::Rest
