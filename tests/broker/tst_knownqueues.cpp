// SPDX-License-Identifier: GPL-3.0-or-later
// What a Redis-backed broker remembers of each queue: configs and size estimates, and the rule
// that a queue with spooled publishes keeps its config when Redis says it is missing.
#include "storage/knownqueues.h"

#include "resilience/publishspool.h"

#include "../support/eventloop.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestKnownQueues : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sizesFollowWhatThisBrokerSaw();
    void aMissingQueueKeepsItsConfigWhileSpooled_data();
    void aMissingQueueKeepsItsConfigWhileSpooled();
};

void TestKnownQueues::sizesFollowWhatThisBrokerSaw()
{
    KnownQueues known;
    QVERIFY(!known.config("q"));
    QueueConfig config;
    config.maxSize = 7;
    known.remember("q", config, 3);
    QCOMPARE(known.config("q")->maxSize, 7);
    QCOMPARE(known.knownSize("q"), 3);
    known.take("q", 5); // others may have published meanwhile: never below zero
    QCOMPARE(known.knownSize("q"), 0);
    known.add("q", 4);
    QCOMPARE(known.knownSize("q"), 4);
    known.take("unknown", 2); // no size known: stays unknown
    QCOMPARE(known.knownSize("unknown"), 0);
    known.replaced("q");
    QVERIFY(!known.config("q"));
    QCOMPARE(known.knownSize("q"), 4);
    known.forget("q");
    QCOMPARE(known.knownSize("q"), 0);
}

void TestKnownQueues::aMissingQueueKeepsItsConfigWhileSpooled_data()
{
    QTest::addColumn<int>("spooled");
    QTest::addColumn<bool>("kept");
    QTest::addRow("nothing-spooled-forgotten") << 0 << false;
    QTest::addRow("spooled-kept-for-the-drain") << 2 << true;
}

void TestKnownQueues::aMissingQueueKeepsItsConfigWhileSpooled()
{
    QFETCH(int, spooled);
    QFETCH(bool, kept);
    QTemporaryDir dir;
    auto spool = PublishSpool::open(dir.filePath("spool")).value();
    KnownQueues known;
    known.setSpool(spool.get());
    known.remember("q", QueueConfig{}, 1);
    QList<PublishSpool::Message> messages;
    for (int i = 0; i < spooled; ++i)
        messages.append({0, QByteArray("m")});
    if (spooled > 0) {
        bool written = false;
        spool->append("q", QueueConfig{}, messages, [&](Result<void> r) { written = r.ok(); });
        QVERIFY(waitUntil([&] { return written; }));
    }
    QCOMPARE(known.spooled("q"), spooled);
    QCOMPARE(known.knownSize("q"), 1 + spooled);
    known.missing("q");
    QCOMPARE(known.config("q") != nullptr, kept);
    known.setSpool(nullptr);
}

QTEST_GUILESS_MAIN(TestKnownQueues)
#include "tst_knownqueues.moc"
