// SPDX-License-Identifier: GPL-3.0-or-later
#include "enginefixture.h"

#include <QTest>

#include <vector>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// A custom queue type: last in, first out.
class StackReadySet final : public ReadySet
{
public:
    void push(StoredMessage &&message) override { m_items.push_back(std::move(message)); }
    void requeue(StoredMessage &&message) override { m_items.push_back(std::move(message)); }
    bool pop(StoredMessage &out) override
    {
        if (m_items.empty())
            return false;
        out = std::move(m_items.back());
        m_items.pop_back();
        return true;
    }
    qint64 size() const override { return qint64(m_items.size()); }
    void forEach(const std::function<bool(const StoredMessage &)> &visit) const override
    {
        for (auto it = m_items.rbegin(); it != m_items.rend(); ++it) {
            if (!visit(*it))
                return;
        }
    }
    void removeIf(const std::function<bool(const StoredMessage &)> &take, std::vector<StoredMessage> &out) override
    {
        std::vector<StoredMessage> kept;
        for (StoredMessage &m : m_items)
            (take(m) ? out : kept).push_back(std::move(m));
        m_items.swap(kept);
    }
    void clear() override { m_items.clear(); }

private:
    std::vector<StoredMessage> m_items;
};

} // namespace

class TestQueueTypeRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void builtInTypes();
    void customTypeDeliversInItsOwnOrder();
    void namesCannotBeTakenTwice();
    void onlyTheTypesEveryBrokerHasAreBuiltIn_data();
    void onlyTheTypesEveryBrokerHasAreBuiltIn();
};

void TestQueueTypeRegistry::builtInTypes()
{
    QueueTypeRegistry registry;
    QCOMPARE(registry.names(), (QStringList{"list", "priority", "stream"}));
    QCOMPARE(registry.kindOf("stream"), QueueKind::Stream);
    QCOMPARE(registry.kindOf("priority"), QueueKind::Ordered);
    QVERIFY(!registry.contains("stack"));
}

void TestQueueTypeRegistry::customTypeDeliversInItsOwnOrder()
{
    EngineFixture f;
    QVERIFY(f.broker.registerQueueType("stack", "Last in, first out", [] { return std::make_unique<StackReadySet>(); }));
    QVERIFY(f.broker.queueTypes().contains("stack"));
    QVERIFY(f.create("undo", jsonObject(R"({"type":"stack","ttl":100})")).ok());
    QVERIFY(f.publish("undo", numbers(1, 4)).ok());
    QCOMPARE(payloadsOf(f.browse("undo", 0, 10)->messages), (QList<QByteArray>{"4", "3", "2", "1"}));
    const Message top = f.consume("undo", 1, false)->first();
    QCOMPARE(top.data, QByteArray("4"));
    QVERIFY(f.nack("undo", top.id, top.receipt)->requeued);
    QCOMPARE(payloadsOf(*f.consume("undo", 2)), (QList<QByteArray>{"4", "3"}));
    // Leases, TTL and counters work for custom types as for built-in ones.
    f.advance(100'000);
    QVERIFY(f.consume("undo", 5)->isEmpty());
    QCOMPARE(f.info("undo")->counters.expired, 2);
}

void TestQueueTypeRegistry::namesCannotBeTakenTwice()
{
    QueueTypeRegistry registry;
    QVERIFY(!registry.registerQueueType("list", "again", [] { return std::make_unique<StackReadySet>(); }));
    QVERIFY(!registry.registerQueueType("empty-factory", "x", {}));
    QVERIFY(!registry.registerQueueType("", "x", [] { return std::make_unique<StackReadySet>(); }));
    QVERIFY(registry.registerQueueType("stack", "x", [] { return std::make_unique<StackReadySet>(); }));
    QVERIFY(!registry.registerQueueType("stack", "x", [] { return std::make_unique<StackReadySet>(); }));
}

void TestQueueTypeRegistry::onlyTheTypesEveryBrokerHasAreBuiltIn_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("registered");
    QTest::addColumn<bool>("builtIn");
    QTest::addRow("list") << "list" << true << true;
    QTest::addRow("priority") << "priority" << true << true;
    QTest::addRow("stream") << "stream" << true << true;
    QTest::addRow("registered-at-run-time") << "stack" << true << false;
    QTest::addRow("unknown") << "heap" << false << false;
}

void TestQueueTypeRegistry::onlyTheTypesEveryBrokerHasAreBuiltIn()
{
    QFETCH(QString, type);
    QFETCH(bool, registered);
    QFETCH(bool, builtIn);
    QueueTypeRegistry registry;
    QVERIFY(registry.registerQueueType("stack", "x", [] { return std::make_unique<StackReadySet>(); }));
    QCOMPARE(registry.contains(type), registered);
    QCOMPARE(registry.isBuiltIn(type), builtIn);
}

QTEST_GUILESS_MAIN(TestQueueTypeRegistry)
#include "tst_queuetyperegistry.moc"
