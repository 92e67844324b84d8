// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/queuetyperegistry.h"
#include "storage/journaledstore.h"
#include "storage/memorystore.h"

#include "core/messageid.h"

#include "../support/awaitresult.h"
#include "../support/storedump.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;

namespace {

using Testing::dump;
using Testing::expectOk;
using Testing::awaitResult;
using Testing::get;

NewMessage message(const QByteArray &data, int priority = 0, qint64 delayMs = 0)
{
    NewMessage m;
    m.data = data;
    m.priority = priority;
    m.delayMs = delayMs;
    if (priority > 1)
        m.headers.insert(QStringLiteral("tag"), QStringLiteral("urgent"));
    return m;
}

QueueConfig config(const QString &type, const QString &deadLetters = {}, int maxDeliveries = 5)
{
    QueueConfig c;
    c.type = type;
    c.deadLetterQueue = deadLetters;
    c.maxDeliveries = maxDeliveries;
    c.visibilityTimeoutSeconds = 30;
    return c;
}

} // namespace

class TestJournaledStore : public QObject
{
    Q_OBJECT

private:
    QueueTypeRegistry m_types;
    ManualClock m_clock;
    QTemporaryDir m_dir;

    std::unique_ptr<JournaledStore> open(const QString &path, JournaledStore::ReplayReport *report = nullptr,
                                         JournalWriter::Fsync fsync = JournalWriter::Fsync::Never)
    {
        Result<std::unique_ptr<JournaledStore>> store = JournaledStore::open(m_types, m_clock, {path, fsync}, report);
        if (!store)
            qWarning("%s", qPrintable(store.error().message));
        return store ? std::move(store.value()) : nullptr;
    }

    // A workload touching every kind of change: leases, nacks with delay, lease expiry,
    // dead-lettering, stream groups, redrive, purge, delete. Returns a lease still open.
    Message work(QueueStore &store)
    {
        get<QueueInfo>([&](auto d) { store.createQueue("orders.dlq", config("list"), d); });
        get<QueueInfo>([&](auto d) { store.createQueue("orders", config("list", "orders.dlq", 2), d); });
        get<QueueInfo>([&](auto d) { store.createQueue("jobs", config("priority"), d); });
        get<QueueInfo>([&](auto d) { store.createQueue("audit", config("stream"), d); });
        get<QueueInfo>([&](auto d) { store.createQueue("scratch", config("list"), d); });
        QueueConfig partitioned = config("list");
        partitioned.partitions = 3; // its count is journaled and kept in snapshots
        get<QueueInfo>([&](auto d) { store.createQueue("sharded", partitioned, d); });
        QueueConfigChange grow;
        grow.partitions = 5;
        get<QueueInfo>([&](auto d) { store.updateQueue("sharded", grow, d); });
        for (int i = 0; i < 20; ++i) {
            get<PublishResult>([&](auto d) {
                store.publish("orders", {message(QByteArray::number(i)), message("\"b\"", 0, i % 3 ? 0 : 5000)}, "alice", d);
            });
            get<PublishResult>([&](auto d) { store.publish("jobs", {message(QByteArray::number(i), i % 4)}, "bob", d); });
            get<PublishResult>([&](auto d) { store.publish("audit", {message(R"({"n":1})")}, "carol", d); });
            m_clock.advanceMs(7);
        }
        get<PublishResult>([&](auto d) { store.publish("scratch", {message("1"), message("2")}, "alice", d); });

        ConsumeRequest lease;
        lease.acknowledge = false;
        lease.count = 3;
        QList<Message> leased = get<QList<Message>>([&](auto d) { store.consume("orders", lease, d); });
        expectOk([&](auto d) { store.ack("orders", {leased[0].id, leased[0].receipt, {}, "w"}, d); });
        get<NackResult>([&](auto d) { store.nack("orders", {leased[1].id, leased[1].receipt, {}, "w"}, 2000, d); });
        get<qint64>([&](auto d) { store.extend("orders", {leased[2].id, leased[2].receipt, {}, "w"}, 90'000, d); });
        ConsumeRequest once;
        once.count = 5;
        get<QList<Message>>([&](auto d) { store.consume("jobs", once, d); });

        ConsumeRequest group;
        group.acknowledge = false;
        group.count = 4;
        group.group = "billing";
        group.consumer = "b1";
        const QList<Message> fromStream = get<QList<Message>>([&](auto d) { store.consume("audit", group, d); });
        expectOk([&](auto d) { store.ack("audit", {fromStream[0].id, fromStream[0].receipt, "billing", "b1"}, d); });

        // Leases run out twice: with max_deliveries 2 the second expiry dead-letters.
        for (int round = 0; round < 2; ++round) {
            get<QList<Message>>([&](auto d) { store.consume("orders", lease, d); });
            m_clock.advanceMs(31'000);
            get<qint64>([&](auto d) { store.runMaintenance(d); });
        }
        RedriveRequest one;
        one.limit = 1;
        one.user = "admin";
        get<RedriveResult>([&](auto d) { store.redrive("orders.dlq", one, d); });
        get<qint64>([&](auto d) { store.purgeQueue("jobs", d); });
        get<qint64>([&](auto d) { store.deleteQueue("scratch", d); });
        get<PublishResult>([&](auto d) { store.publish("jobs", {message("after-purge", 3)}, "bob", d); });
        // One lease left open across the restart.
        ConsumeRequest last;
        last.acknowledge = false;
        return get<QList<Message>>([&](auto d) { store.consume("jobs", last, d); }).first();
    }

private Q_SLOTS:
    void replayRebuildsTheExactState();
    void changesAnswerOnlyOnceWritten();
    void aTornLastRecordIsDropped();
    void damageInTheMiddleStopsOpening();
    void aSnapshotRestoresTheExactState();
    void compactionKeepsTheState();
    void compactionStartsWhenTheJournalOutgrowsTheData();
    void aCompactionInterruptedAtAnyStepLosesNothing_data();
    void aCompactionInterruptedAtAnyStepLosesNothing();
    void aQueueOfATypeNotRegisteredNowIsNotReplayed();
    void changedOptionsSurviveARestart_data();
    void changedOptionsSurviveARestart();
    void messageActionsAndEditedRedrivesReplay();
};

void TestJournaledStore::replayRebuildsTheExactState()
{
    const QString path = m_dir.filePath("exact.journal");
    QString before;
    Message open;
    {
        auto store = this->open(path);
        QVERIFY(store);
        open = work(*store);
        before = dump(*store);
    }
    QVERIFY(before.contains("orders.dlq"));
    QVERIFY(before.contains("group billing"));

    JournaledStore::ReplayReport report;
    auto replayed = this->open(path, &report);
    QVERIFY(replayed);
    QVERIFY2(report.records > 70, qPrintable(QString::number(report.records)));
    QVERIFY(!report.tornTail);
    QCOMPARE(dump(*replayed), before);

    // The open lease survived with its receipt, and expires as usual afterwards.
    expectOk([&](auto d) { replayed->ack("jobs", {open.id, open.receipt, {}, "w"}, d); });
    // New messages get new ids after the replayed ones.
    const PublishResult fresh = get<PublishResult>([&](auto d) { replayed->publish("jobs", {message("new")}, "bob", d); });
    QVERIFY(*MessageId::parse(fresh.messageIds().first()) > *MessageId::parse(open.id));

    // And a second restart sees the changes of the first session too.
    const QString after = dump(*replayed);
    replayed.reset();
    auto again = this->open(path);
    QVERIFY(again);
    QCOMPARE(dump(*again), after);
}

void TestJournaledStore::changesAnswerOnlyOnceWritten()
{
    const QString path = m_dir.filePath("commit.journal");
    auto store = open(path, nullptr, JournalWriter::Fsync::Always);
    QVERIFY(store);
    get<QueueInfo>([&](auto d) { store->createQueue("q", config("list"), d); });
    const qint64 sizeBefore = QFile(path).size();
    bool answered = false;
    store->publish("q", {message("1")}, "alice", [&](Result<PublishResult> r) {
        QVERIFY(r.ok());
        answered = true;
    });
    QVERIFY(!answered); // not before the end of this event-loop turn's group commit
    QTRY_VERIFY(answered);
    QVERIFY(QFile(path).size() > sizeBefore);
    QCOMPARE(store->writer().stats().syncs > 0, true);

    // A maintenance run with nothing to do leaves no record: an idle broker's journal stays put.
    const qint64 idleSize = QFile(path).size();
    get<qint64>([&](auto d) { store->runMaintenance(d); });
    QTest::qWait(20);
    QCOMPARE(QFile(path).size(), idleSize);

    // An empty consume is kept but answers at once; a failed change is not kept at all.
    bool empty = false;
    store->consume("nope", {}, [&](Result<QList<Message>> r) { empty = !r.ok(); });
    QVERIFY(empty);
}

void TestJournaledStore::aTornLastRecordIsDropped()
{
    const QString path = m_dir.filePath("torn.journal");
    QString withoutLast;
    {
        auto store = open(path);
        get<QueueInfo>([&](auto d) { store->createQueue("q", config("list"), d); });
        get<PublishResult>([&](auto d) { store->publish("q", {message("1")}, "alice", d); });
        withoutLast = dump(*store);
        get<PublishResult>([&](auto d) { store->publish("q", {message("22222222")}, "alice", d); });
    }
    QFile file(path);
    QVERIFY(file.resize(file.size() - 3)); // the crash cut the last write short
    JournaledStore::ReplayReport report;
    auto store = open(path, &report);
    QVERIFY(store);
    QVERIFY(report.tornTail);
    QCOMPARE(dump(*store), withoutLast);
}

void TestJournaledStore::damageInTheMiddleStopsOpening()
{
    const QString path = m_dir.filePath("damaged.journal");
    {
        auto store = open(path);
        get<QueueInfo>([&](auto d) { store->createQueue("q", config("list"), d); });
        for (int i = 0; i < 10; ++i)
            get<PublishResult>([&](auto d) { store->publish("q", {message("123456789")}, "alice", d); });
    }
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.seek(file.size() / 2));
    file.write("\xff\xff\xff\xff");
    file.close();
    const Result<std::unique_ptr<JournaledStore>> opened = JournaledStore::open(m_types, m_clock, {path, {}});
    QVERIFY(!opened.ok());
    QVERIFY2(opened.error().message.contains("offset"), qPrintable(opened.error().message));
}

// The building block of compaction: the memory store's whole state as bytes, and back.
void TestJournaledStore::aSnapshotRestoresTheExactState()
{
    MemoryStore original(m_types, m_clock);
    const Message open = work(original);
    const QString before = dump(original);
    const QByteArray state = original.saveState();

    MemoryStore restored(m_types, m_clock);
    const Result<void> loaded = restored.loadState(state);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QCOMPARE(dump(restored), before);
    QCOMPARE(restored.saveState(), state); // byte for byte
    QCOMPARE(restored.nextSequence(), original.nextSequence());

    // Both go on the same way: the open lease, lease expiry, stream groups, new ids.
    for (QueueStore *store : {static_cast<QueueStore *>(&original), static_cast<QueueStore *>(&restored)}) {
        expectOk([&](auto d) { store->ack("jobs", {open.id, open.receipt, {}, "w"}, d); });
        ConsumeRequest lease;
        lease.acknowledge = false;
        lease.count = 2;
        get<QList<Message>>([&](auto d) { store->consume("orders", lease, d); });
        ConsumeRequest group;
        group.group = "billing";
        group.consumer = "b2";
        group.count = 3;
        get<QList<Message>>([&](auto d) { store->consume("audit", group, d); });
        get<PublishResult>([&](auto d) { store->publish("orders", {message("later")}, "dave", d); });
    }
    m_clock.advanceMs(40'000);
    get<qint64>([&](auto d) { original.runMaintenance(d); });
    get<qint64>([&](auto d) { restored.runMaintenance(d); });
    QCOMPARE(dump(restored), dump(original));

    QVERIFY(!restored.loadState(state.left(state.size() / 2)).ok()); // cut short: refused
    QVERIFY(!restored.loadState("not a snapshot").ok());
}

void TestJournaledStore::compactionKeepsTheState()
{
    const QString path = m_dir.filePath("compact.journal");
    QString before;
    qint64 grown = 0;
    {
        auto store = open(path);
        const Message lease = work(*store);
        grown = store->journalBytes();
        QVERIFY(store->compact());
        store->finishCompaction();
        QCOMPARE(store->compactionStats().completed, 1);
        QVERIFY(store->journalBytes() < grown / 4); // a fresh journal: base, seed
        // Changes after the compaction go to the new journal.
        expectOk([&](auto d) { store->ack("jobs", {lease.id, lease.receipt, {}, "w"}, d); });
        get<PublishResult>([&](auto d) { store->publish("orders", {message("after")}, "dave", d); });
        before = dump(*store);
    }
    QVERIFY(QFile::exists(path + ".snapshot"));
    QVERIFY(!QFile::exists(path + ".next"));
    JournaledStore::ReplayReport report;
    auto reopened = open(path, &report);
    QVERIFY(reopened);
    QVERIFY(report.snapshotBytes > 0);
    QVERIFY(report.records < 10);
    QCOMPARE(dump(*reopened), before);
}

void TestJournaledStore::compactionStartsWhenTheJournalOutgrowsTheData()
{
    const QString path = m_dir.filePath("auto.journal");
    JournaledStore::Options options{path, JournalWriter::Fsync::Never};
    options.compactMinBytes = 64 * 1024;
    auto opened = JournaledStore::open(m_types, m_clock, options);
    QVERIFY(opened.ok());
    JournaledStore &store = *opened.value();
    get<QueueInfo>([&](auto d) { store.createQueue("churn", config("list"), d); });
    // Publish and consume the same few messages over and over: the live data stays small, the
    // journal would grow without end.
    ConsumeRequest take;
    take.count = 10;
    for (int round = 0; round < 400; ++round) {
        QList<NewMessage> batch(10, message(QByteArray(100, 'x').prepend('"').append('"')));
        get<PublishResult>([&](auto d) { store.publish("churn", batch, "p", d); });
        get<QList<Message>>([&](auto d) { store.consume("churn", take, d); });
        m_clock.advanceMs(1000);
        get<qint64>([&](auto d) { store.runMaintenance(d); });
        store.finishCompaction();
    }
    QVERIFY2(store.compactionStats().completed >= 3, qPrintable(QString::number(store.compactionStats().completed)));
    QVERIFY(QFile(path).size() < 3 * options.compactMinBytes);
}

void TestJournaledStore::aCompactionInterruptedAtAnyStepLosesNothing_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<bool>("tmpLeftOver");
    QTest::addRow("after-the-journal-switch") << int(JournaledStore::Options::Step::JournalSwitched) << false;
    QTest::addRow("while-writing-the-snapshot") << int(JournaledStore::Options::Step::JournalSwitched) << true;
    QTest::addRow("after-the-snapshot-before-the-rename") << int(JournaledStore::Options::Step::SnapshotWritten) << false;
}

void TestJournaledStore::aCompactionInterruptedAtAnyStepLosesNothing()
{
    QFETCH(int, step);
    QFETCH(bool, tmpLeftOver);
    const QString path = m_dir.filePath(QStringLiteral("interrupted-%1-%2.journal").arg(step).arg(tmpLeftOver));
    QString before;
    Message lease;
    {
        // A completed compaction first, so that an older snapshot exists too.
        auto store = open(path);
        get<QueueInfo>([&](auto d) { store->createQueue("early", config("list"), d); });
        get<PublishResult>([&](auto d) { store->publish("early", {message("1")}, "p", d); });
        QVERIFY(store->compact());
        store->finishCompaction();
    }
    {
        JournaledStore::Options options{path, JournalWriter::Fsync::Never};
        options.stopCompactionAfter = JournaledStore::Options::Step(step);
        auto opened = JournaledStore::open(m_types, m_clock, options);
        QVERIFY(opened.ok());
        JournaledStore &store = *opened.value();
        lease = work(store);
        QVERIFY(store.compact());
        store.finishCompaction();
        get<PublishResult>([&](auto d) { store.publish("early", {message("after")}, "p", d); });
        before = dump(store);
    } // the process "dies" here: files stay as they are
    QVERIFY(QFile::exists(path + ".next"));
    if (tmpLeftOver) {
        QFile tmp(path + ".snapshot.tmp");
        QVERIFY(tmp.open(QIODevice::WriteOnly));
        tmp.write("half a snapshot");
    }
    JournaledStore::ReplayReport report;
    auto recovered = open(path, &report);
    QVERIFY(recovered);
    QCOMPARE(dump(*recovered), before);
    QVERIFY(!QFile::exists(path + ".next"));          // finished on the way
    QVERIFY(!QFile::exists(path + ".snapshot.tmp"));
    expectOk([&](auto d) { recovered->ack("jobs", {lease.id, lease.receipt, {}, "w"}, d); });
    const QString after = dump(*recovered);
    recovered.reset();
    auto again = open(path);
    QVERIFY(again);
    QCOMPARE(dump(*again), after);
}

// The engine checks a queue's type when it is created; a broker that replays the journal without
// that type registered (an embedder's own) must refuse to open rather than pick another order.
void TestJournaledStore::aQueueOfATypeNotRegisteredNowIsNotReplayed()
{
    const QString path = m_dir.filePath("custom-type.journal");
    QueueTypeRegistry withCustom;
    QVERIFY(withCustom.registerQueueType("custom", "FIFO under a name of its own",
                                         [this] { return m_types.createReadySet("list"); }));
    {
        auto store = JournaledStore::open(withCustom, m_clock, {path, JournalWriter::Fsync::Never});
        QVERIFY(store);
        get<QueueInfo>([&](auto d) { store.value()->createQueue("undo", config("custom"), d); });
    }
    const Result<std::unique_ptr<JournaledStore>> reopened = JournaledStore::open(m_types, m_clock, {path, {}});
    QVERIFY(!reopened);
    QCOMPARE(reopened.error().code, ErrorCode::Internal);
    QVERIFY2(reopened.error().message.contains("queue undo has the unknown type 'custom'"),
             qPrintable(reopened.error().message));
    // With the type registered again, the journal opens as it was.
    auto again = JournaledStore::open(withCustom, m_clock, {path, {}});
    QVERIFY(again);
    QCOMPARE(get<QueueInfo>([&](auto d) { again.value()->queueInfo("undo", d); }).config.type, QString("custom"));
}

QTEST_GUILESS_MAIN(TestJournaledStore)
#include "tst_journaledstore.moc"

void TestJournaledStore::changedOptionsSurviveARestart_data()
{
    QTest::addColumn<bool>("compactFirst"); // the change lives in the snapshot rather than the journal
    QTest::addRow("from-the-journal") << false;
    QTest::addRow("from-the-snapshot") << true;
}

void TestJournaledStore::changedOptionsSurviveARestart()
{
    QFETCH(bool, compactFirst);
    const QString path = m_dir.filePath(compactFirst ? "patch-snapshot.journal" : "patch.journal");
    QueueConfigChange change;
    change.maxSize = 2;
    change.ttlSeconds = 120;
    change.visibilityTimeoutSeconds = 11;
    change.maxDeliveries = 1;
    change.deadLetterQueue = QStringLiteral("orders.dlq");
    QueueConfig expected = config("list");
    expected = change.appliedTo(expected);
    QString before;
    {
        auto store = open(path);
        QVERIFY(store);
        get<QueueInfo>([&](auto d) { store->createQueue("orders.dlq", config("list"), d); });
        get<QueueInfo>([&](auto d) { store->createQueue("orders", config("list"), d); });
        get<PublishResult>([&](auto d) { store->publish("orders", {message("1")}, "alice", d); });
        const QueueInfo changed = get<QueueInfo>([&](auto d) { store->updateQueue("orders", change, d); });
        QCOMPARE(changed.config, expected);
        if (compactFirst) {
            QVERIFY(store->compact());
            store->finishCompaction();
        }
        // A change refused by the store (no such queue) leaves no record to replay.
        const Result<QueueInfo> missing = awaitResult<QueueInfo>([&](auto d) { store->updateQueue("nope", change, d); });
        QCOMPARE(missing.error().code, ErrorCode::QueueNotFound);
        before = dump(*store);
    }
    auto replayed = open(path);
    QVERIFY(replayed);
    QCOMPARE(dump(*replayed), before);
    QCOMPARE(get<QueueInfo>([&](auto d) { replayed->queueInfo("orders", d); }).config, expected);
    // And the options act after the restart: max_deliveries 1 dead-letters on the first nack.
    ConsumeRequest lease;
    lease.acknowledge = false;
    const Message leased = get<QList<Message>>([&](auto d) { replayed->consume("orders", lease, d); }).first();
    QCOMPARE(leased.leaseDeadlineMs, m_clock.nowMs() + 11'000);
    const NackResult nacked = get<NackResult>([&](auto d) { replayed->nack("orders", {leased.id, leased.receipt, {}, "w"}, 0, d); });
    QVERIFY(nacked.deadLettered);
}

void TestJournaledStore::messageActionsAndEditedRedrivesReplay()
{
    const QString path = m_dir.filePath("actions.journal");
    QString before;
    QList<QString> ids;
    {
        auto store = open(path);
        QVERIFY(store);
        get<QueueInfo>([&](auto d) { store->createQueue("orders.dlq", config("list"), d); });
        get<QueueInfo>([&](auto d) { store->createQueue("orders", config("list", "orders.dlq"), d); });
        get<QueueInfo>([&](auto d) { store->createQueue("billing", config("priority"), d); });
        for (int i = 0; i < 6; ++i)
            ids.append(get<PublishResult>([&](auto d) { store->publish("orders", {message(QByteArray::number(i), 0, i == 5 ? 9000 : 0)}, "alice", d); }).messageIds().first());
        ConsumeRequest lease;
        lease.acknowledge = false;
        get<QList<Message>>([&](auto d) { store->consume("orders", lease, d); }); // ids[0] on a lease
        const auto act = [&](MessageAction::Kind kind, const QList<QString> &which, const QString &target = {}) {
            MessageAction action{kind, which, target, "admin"};
            return get<MessageActionResult>([&](auto d) { store->messageAction("orders", action, d); });
        };
        QCOMPARE(act(MessageAction::Kind::Requeue, {ids[0], ids[5]}).affected, 2);
        QCOMPARE(act(MessageAction::Kind::Move, {ids[1]}, "billing").affected, 1);
        QCOMPARE(act(MessageAction::Kind::Delete, {ids[2]}).affected, 1);
        QCOMPARE(act(MessageAction::Kind::DeadLetter, {ids[3], ids[4]}).affected, 2);
        RedriveRequest edited;
        edited.ids = {ids[4]};
        edited.edits.insert(ids[4], R"({"b":1,"a":2})");
        edited.user = "admin";
        QCOMPARE(get<RedriveResult>([&](auto d) { store->redrive("orders", edited, d); }).moved, 1);
        before = dump(*store);
    }
    QVERIFY(before.contains(R"({"b":1,"a":2})"));
    auto replayed = open(path);
    QVERIFY(replayed);
    QCOMPARE(dump(*replayed), before);
}
