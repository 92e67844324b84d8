// SPDX-License-Identifier: GPL-3.0-or-later
// The slot map from CLUSTER SHARDS and CLUSTER SLOTS replies (as RESP2 sends them), MOVED
// updates, and replies it must refuse. The same parsing against a live cluster: tst_clusterrouter.
#include "redis/slotmap.h"

#include "../support/redisreplies.h"

#include <QTest>

using namespace Broker::Redis;
using namespace Broker::Testing;

Q_DECLARE_METATYPE(Broker::Redis::RedisReply)

namespace {

const auto text = textReply;
const auto number = integerReply;
const auto array = arrayReply;

RedisReply shardNode(const QByteArray &endpoint, int port, const QByteArray &role, const QByteArray &health,
                     int tlsPort = 0)
{
    QList<RedisReply> fields{text("id"), text("id-" + QByteArray::number(port)), text("port"), number(port),
                             text("ip"), text("127.0.0.1"), text("endpoint"), text(endpoint), text("role"),
                             text(role), text("replication-offset"), number(42), text("health"), text(health)};
    if (tlsPort)
        fields << text("tls-port") << number(tlsPort);
    return array(fields);
}
RedisReply shard(QList<qint64> ranges, QList<RedisReply> nodes)
{
    QList<RedisReply> bounds;
    for (const qint64 bound : ranges)
        bounds << number(bound);
    return array({text("slots"), array(bounds), text("nodes"), array(nodes)});
}

} // namespace

class TestSlotMap : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shards();
    void shardsPreferOnlinePrimaryAndTlsPort();
    void clusterSlots();
    void movedAssignsOneSlot();
    void refuses_data();
    void refuses();
    void parsesAddresses();
};

void TestSlotMap::shards()
{
    const RedisReply reply = array({
        shard({0, 5460}, {shardNode("127.0.0.1", 7000, "master", "online"), shardNode("127.0.0.1", 7003, "replica", "online")}),
        shard({5461, 10922}, {shardNode("", 7001, "master", "online")}),
        shard({10923, 12000, 12001, 16383}, {shardNode("?", 7002, "master", "loading")}),
    });
    const auto map = SlotMap::fromShards(reply, QStringLiteral("10.0.0.9"), false);
    QVERIFY2(map.ok(), qPrintable(map ? QString() : map.error().message));
    QCOMPARE(map->assignedSlots(), SlotCount);
    QCOMPARE(map->primaries().size(), 3);
    QCOMPARE(*map->primaryOf(0), (NodeAddress{QStringLiteral("127.0.0.1"), 7000}));
    QCOMPARE(*map->primaryOf(5460), (NodeAddress{QStringLiteral("127.0.0.1"), 7000}));
    QCOMPARE(*map->primaryOf(5461), (NodeAddress{QStringLiteral("10.0.0.9"), 7001})); // empty endpoint
    QCOMPARE(*map->primaryOf(16383), (NodeAddress{QStringLiteral("10.0.0.9"), 7002})); // "?" endpoint
    QCOMPARE(map->nodes().size(), 4);
    QCOMPARE(map->nodes()[0].slotCount, 5461);
    QVERIFY(!map->nodes()[1].primary);
    QCOMPARE(map->nodes()[1].health, QStringLiteral("online"));
    QCOMPARE(map->nodes()[3].slotCount, 16384 - 10923);
}

void TestSlotMap::shardsPreferOnlinePrimaryAndTlsPort()
{
    // Right after a failover a shard may still list the failed primary beside the promoted one.
    const RedisReply reply = array({shard({0, 16383}, {shardNode("127.0.0.1", 7000, "master", "failed", 8000),
                                                       shardNode("127.0.0.1", 7003, "master", "online", 8003)})});
    const auto plain = SlotMap::fromShards(reply, QString(), false);
    QVERIFY(plain.ok());
    QCOMPARE(plain->primaryOf(100)->port, 7003);
    QCOMPARE(plain->primaries().size(), 1); // the failed one serves nothing
    const auto tls = SlotMap::fromShards(reply, QString(), true);
    QVERIFY(tls.ok());
    QCOMPARE(tls->primaryOf(100)->port, 8003);
}

void TestSlotMap::clusterSlots()
{
    const auto node = [](const QByteArray &host, int port) { return array({text(host), number(port), text("id")}); };
    const RedisReply reply = array({
        array({number(0), number(8191), node("127.0.0.1", 7000), node("127.0.0.1", 7003)}),
        array({number(8192), number(16383), node("", 7001)}),
    });
    const auto map = SlotMap::fromSlots(reply, QStringLiteral("192.0.2.1"));
    QVERIFY(map.ok());
    QCOMPARE(map->assignedSlots(), SlotCount);
    QCOMPARE(map->primaryOf(8191)->port, 7000);
    QCOMPARE(*map->primaryOf(8192), (NodeAddress{QStringLiteral("192.0.2.1"), 7001}));
    QCOMPARE(map->nodes().size(), 3);
    QCOMPARE(map->nodes()[0].slotCount, 8192);
}

void TestSlotMap::movedAssignsOneSlot()
{
    const auto map = SlotMap::fromShards(array({shard({0, 16383}, {shardNode("127.0.0.1", 7000, "master", "online")})}),
                                         QString(), false);
    QVERIFY(map.ok());
    SlotMap moved = *map;
    moved.assign(42, NodeAddress{QStringLiteral("127.0.0.1"), 7005});
    QCOMPARE(moved.primaryOf(42)->port, 7005);
    QCOMPARE(moved.primaryOf(41)->port, 7000);
    QCOMPARE(moved.primaries().size(), 2);
    QVERIFY(SlotMap().primaryOf(42) == nullptr);
    QVERIFY(SlotMap().primaryOf(-1) == nullptr);
    QVERIFY(moved.primaryOf(SlotCount) == nullptr);
}

void TestSlotMap::refuses_data()
{
    QTest::addColumn<RedisReply>("reply");
    QTest::addRow("not-an-array") << text("ERR");
    QTest::addRow("shard-without-nodes") << array({array({text("slots"), array({number(0), number(1)})})});
    QTest::addRow("odd-slot-bounds") << array({shard({0}, {shardNode("h", 7000, "master", "online")})});
    QTest::addRow("slot-out-of-range") << array({shard({0, 16384}, {shardNode("h", 7000, "master", "online")})});
    QTest::addRow("reversed-range") << array({shard({10, 5}, {shardNode("h", 7000, "master", "online")})});
    QTest::addRow("node-without-port") << array({shard({0, 5}, {shardNode("h", 0, "master", "online")})});
}

void TestSlotMap::refuses()
{
    QFETCH(RedisReply, reply);
    const auto map = SlotMap::fromShards(reply, QString(), false);
    QVERIFY(!map.ok());
    QVERIFY(map.error().message.contains(QLatin1String("cluster topology")));
}

void TestSlotMap::parsesAddresses()
{
    QCOMPARE(NodeAddress::parse("127.0.0.1:7000"), (NodeAddress{QStringLiteral("127.0.0.1"), 7000}));
    QCOMPARE(NodeAddress::parse("[::1]:7000"), (NodeAddress{QStringLiteral("::1"), 7000}));
    QCOMPARE(NodeAddress::parse("redis-0.local:6379").host, QStringLiteral("redis-0.local"));
    QCOMPARE(NodeAddress::parse(":7000").port, 0);
    QCOMPARE(NodeAddress::parse("host:0").port, 0);
    QCOMPARE(NodeAddress::parse("host:65536").port, 0);
    QCOMPARE(NodeAddress::parse("host").port, 0);
}

QTEST_APPLESS_MAIN(TestSlotMap)
#include "tst_slotmap.moc"
