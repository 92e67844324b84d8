// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessorRegistry through the broker, with a processor the test finishes by hand: at most
// concurrency - inFlight messages leased at once, acks and nacks with growing backoff,
// dead-lettering after max_deliveries, a processor that waits for its queue, and the
// backoff's arithmetic.
#include "engine/processorregistry.h"

#include "processorfixture.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// Holds every message it is given until the test settles it.
class HeldProcessor : public AsyncProcessor
{
public:
    struct Held
    {
        Message message;
        ProcessorDone done;
    };
    explicit HeldProcessor(std::vector<Held> &held) : m_held(held) {}
    void process(const Message &message, ProcessorDone done) override { m_held.push_back({message, std::move(done)}); }
    QString kind() const override { return QStringLiteral("held"); }
    QString target() const override { return QStringLiteral("test"); }

private:
    std::vector<Held> &m_held;
};

} // namespace

class TestProcessorRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void backoffGrowsAndIsCapped_data();
    void backoffGrowsAndIsCapped();
    void leasesAtMostConcurrencyAtOnce();
    void nackWaitsForItsBackoffThenDeadLetters();
    void waitsForItsQueue();
    void removedProcessorLeavesItsMessagesToTheLeases();
};

void TestProcessorRegistry::backoffGrowsAndIsCapped_data()
{
    QTest::addColumn<qint64>("first");
    QTest::addColumn<qint64>("max");
    QTest::addColumn<int>("deliveryCount");
    QTest::addColumn<qint64>("delay");
    QTest::addRow("first-delivery") << qint64(1000) << qint64(60'000) << 1 << qint64(1000);
    QTest::addRow("doubles") << qint64(1000) << qint64(60'000) << 3 << qint64(4000);
    QTest::addRow("capped") << qint64(1000) << qint64(60'000) << 8 << qint64(60'000);
    QTest::addRow("huge-count-stays-capped") << qint64(1000) << qint64(60'000) << 1000 << qint64(60'000);
    QTest::addRow("zero-means-at-once") << qint64(0) << qint64(0) << 5 << qint64(0);
}

void TestProcessorRegistry::backoffGrowsAndIsCapped()
{
    QFETCH(qint64, first);
    QFETCH(qint64, max);
    QFETCH(int, deliveryCount);
    QFETCH(qint64, delay);
    QCOMPARE((ProcessorBackoff{first, max}.delayMs(deliveryCount)), delay);
}

void TestProcessorRegistry::leasesAtMostConcurrencyAtOnce()
{
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 10)).ok());
    std::vector<HeldProcessor::Held> held;
    f.broker.registerProcessor(QStringLiteral("q"), std::make_unique<HeldProcessor>(held), 3, QStringLiteral("h"));
    QTRY_COMPARE(held.size(), std::size_t(3));
    QTest::qWait(30); // more turns of the loop: still three
    QCOMPARE(held.size(), std::size_t(3));
    ProcessorStatus status = onlyStatus(f);
    QCOMPARE(status.inFlight, 3);
    QCOMPARE(status.concurrency, 3);
    QCOMPARE(status.name, QStringLiteral("h"));
    QVERIFY(status.running);
    QCOMPARE(f.info(QStringLiteral("q"))->inFlight, 3);

    // One settled: exactly one more is leased.
    held.front().done(ProcessorOutcome::ack());
    QTRY_COMPARE(held.size(), std::size_t(4));
    QTest::qWait(30);
    QCOMPARE(held.size(), std::size_t(4));
    QCOMPARE(onlyStatus(f).inFlight, 3);
    for (std::size_t i = 1; i < held.size(); ++i)
        held[i].done(ProcessorOutcome::ack());
    QTRY_COMPARE(held.size(), std::size_t(7));
    for (std::size_t i = 4; i < 7; ++i)
        held[i].done(ProcessorOutcome::ack());
    QTRY_COMPARE(held.size(), std::size_t(10));
    for (std::size_t i = 7; i < 10; ++i)
        held[i].done(ProcessorOutcome::ack());
    QTRY_COMPARE(f.info(QStringLiteral("q"))->counters.acked, 10);
    status = onlyStatus(f);
    QCOMPARE(status.successes, 10);
    QCOMPARE(status.inFlight, 0);
    QVERIFY(!status.failing);
}

void TestProcessorRegistry::nackWaitsForItsBackoffThenDeadLetters()
{
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":3,"dead_letter_queue":true})")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    std::vector<HeldProcessor::Held> held;
    f.broker.registerProcessor(QStringLiteral("q"), std::make_unique<HeldProcessor>(held), 1);
    QTRY_COMPARE(held.size(), std::size_t(1));
    held.back().done(ProcessorOutcome::nack(QStringLiteral("HTTP 503")));
    // Delayed by the first backoff (100 ms of the broker's clock): not offered before.
    QTRY_COMPARE(f.info(QStringLiteral("q"))->delayed, 1);
    QTest::qWait(30);
    QCOMPARE(held.size(), std::size_t(1));
    ProcessorStatus status = onlyStatus(f);
    QCOMPARE(status.failures, 1);
    QVERIFY(status.failing);
    QCOMPARE(status.lastError, QStringLiteral("HTTP 503"));
    QCOMPARE(status.lastErrorAtMs, f.clock.nowMs());
    f.advance(99);
    QTest::qWait(30);
    QCOMPARE(held.size(), std::size_t(1));
    f.advance(1);
    QTRY_COMPARE(held.size(), std::size_t(2));
    QCOMPARE(held.back().message.deliveryCount, 2);
    held.back().done(ProcessorOutcome::nack(QStringLiteral("HTTP 503")));
    // The second wait is twice as long.
    f.advance(199);
    QTest::qWait(30);
    QCOMPARE(held.size(), std::size_t(2));
    f.advance(1);
    QTRY_COMPARE(held.size(), std::size_t(3));
    held.back().done(ProcessorOutcome::nack(QStringLiteral("HTTP 503")));
    QTRY_COMPARE(f.info(QStringLiteral("q.dlq"))->depth, 1);
    QCOMPARE(f.info(QStringLiteral("q"))->size(), 0);
    QCOMPARE(onlyStatus(f).failures, 3);
}

void TestProcessorRegistry::waitsForItsQueue()
{
    EngineFixture f(processorTestOptions());
    std::vector<HeldProcessor::Held> held;
    f.broker.registerProcessor(QStringLiteral("later"), std::make_unique<HeldProcessor>(held), 2);
    ProcessorStatus status = onlyStatus(f);
    QVERIFY(!status.running);
    QVERIFY2(status.lastError.contains(u"'later' does not exist"), qPrintable(status.lastError));
    QVERIFY(!status.failing);

    QVERIFY(f.create(QStringLiteral("later")).ok());
    QTRY_VERIFY(onlyStatus(f).running);
    QVERIFY(onlyStatus(f).lastError.isEmpty());
    QVERIFY(f.publish(QStringLiteral("later"), numbers(1, 1)).ok());
    QTRY_COMPARE(held.size(), std::size_t(1));
    held.back().done(ProcessorOutcome::ack());
    QTRY_COMPARE(onlyStatus(f).successes, 1);

    QVERIFY(f.publish(QStringLiteral("later"), numbers(9, 9)).ok());
    QTRY_COMPARE(held.size(), std::size_t(2));
    held.back().done(ProcessorOutcome::nack(QStringLiteral("HTTP 500")));
    QTRY_COMPARE(onlyStatus(f).failures, 1);
    held.clear();

    QVERIFY(f.remove(QStringLiteral("later")).ok());
    status = onlyStatus(f);
    QVERIFY(!status.running);
    QVERIFY2(status.lastError.contains(u"deleted"), qPrintable(status.lastError));
    QVERIFY(status.failing); // its last delivery failed; the wait does not change that
    QVERIFY(f.create(QStringLiteral("later")).ok());
    QTRY_VERIFY(onlyStatus(f).running);
    QCOMPARE(onlyStatus(f).lastError, QStringLiteral("HTTP 500")); // the wait is over: the delivery failure again
    QVERIFY(f.publish(QStringLiteral("later"), numbers(2, 2)).ok());
    QTRY_COMPARE(held.size(), std::size_t(1));
    QCOMPARE(held.back().message.data, QByteArray("2"));
}

void TestProcessorRegistry::removedProcessorLeavesItsMessagesToTheLeases()
{
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"visibility_timeout":5})")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 2)).ok());
    std::vector<HeldProcessor::Held> held;
    const int id = f.broker.registerProcessor(QStringLiteral("q"), std::make_unique<HeldProcessor>(held), 2);
    QTRY_COMPARE(held.size(), std::size_t(2));
    QVERIFY(f.broker.unregisterProcessor(id));
    held.front().done(ProcessorOutcome::ack()); // too late: nobody listens
    QCOMPARE(f.info(QStringLiteral("q"))->inFlight, 2);
    f.advance(5000);
    const QueueInfo info = *f.info(QStringLiteral("q"));
    QCOMPARE(info.inFlight, 0);
    QCOMPARE(info.depth, 2);
    QCOMPARE(info.counters.acked, 0);
}

QTEST_GUILESS_MAIN(TestProcessorRegistry)
#include "tst_processorregistry.moc"
