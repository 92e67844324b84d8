// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QHostAddress>

namespace Broker::Rest {

// How many connections the server and each client may hold at once, so that one client cannot
// take every slot. A client is its address, except that an IPv6 client is its /64 (one host
// usually holds a whole /64) and an IPv4-mapped IPv6 address is the IPv4 address it maps.
// Loopback addresses (127.0.0.0/8, ::1) get a cap of their own, normally higher: every local
// program (brokerctl, scripts, a reverse proxy on the same host) shares 127.0.0.1. Each loopback
// address counts on its own. Not thread-safe; lives with the server.
class ConnectionQuota
{
public:
    struct Limits
    {
        int maxConnections = 1000;
        int perAddress = 64;
        int perLoopbackAddress = 256;
    };
    enum class Verdict { Admitted, ServerFull, AddressFull };

    explicit ConnectionQuota(const Limits &limits) : m_limits(limits) {}

    // Counts the connection when it is admitted; release() it when it is gone.
    Verdict admit(const QHostAddress &peer);
    void release(const QHostAddress &peer);

    int total() const { return m_total; }
    int heldBy(const QHostAddress &peer) const { return m_perClient.value(clientKey(peer)); }
    int capFor(const QHostAddress &peer) const;

    // The bytes that identify `peer` as a client (see above).
    static QByteArray clientKey(const QHostAddress &peer);
    // The same client as text for people and per-client limits: "192.0.2.7", "2001:db8:1:2::/64".
    static QString clientLabel(const QHostAddress &peer);

private:
    Limits m_limits;
    int m_total = 0;
    QHash<QByteArray, int> m_perClient; // only clients that hold a connection
};

} // namespace Broker::Rest
