// SPDX-License-Identifier: GPL-3.0-or-later
// The durable memory store when the disk fails under it: a full disk (ENOSPC, also cut short in
// the middle of a batch), EIO from write() and from fdatasync(). Faults come from the write/sync
// shim in tests/support/faultshim.c, linked into this test. Expected: a change whose record was
// not written is answered with an error and never takes effect; the journal ends with a complete
// record; the store refuses changes meanwhile, says so, and recovers by itself once writes work;
// a restart (or a crash image of the files) holds exactly the acknowledged changes.
#include "engine/queuetyperegistry.h"
#include "resilience/publishspool.h"
#include "storage/journaledstore.h"
#include "journal/journalfile.h"

#include "../support/storedump.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

extern "C" int brokerfault_configure(const char *spec);
extern "C" long brokerfault_failures(void);

using namespace Broker;
using Testing::awaitResult;
using Testing::dump;
using Testing::get;

namespace {

NewMessage message(int n)
{
    NewMessage m;
    m.data = QByteArray(R"({"n":)") + QByteArray::number(n) + R"(,"pad":")" + QByteArray(200, 'x') + "\"}";
    return m;
}

// Turns faults off when a test ends, however it ends.
struct FaultGuard
{
    ~FaultGuard() { brokerfault_configure("off"); }
};

} // namespace

class TestJournalFaults : public QObject
{
    Q_OBJECT

private:
    QueueTypeRegistry m_types;
    SystemClock m_clock;

    std::unique_ptr<JournaledStore> open(const QString &path, JournalWriter::Fsync fsync)
    {
        JournaledStore::Options options{path, fsync};
        options.retryIntervalMs = 50;
        Result<std::unique_ptr<JournaledStore>> store = JournaledStore::open(m_types, m_clock, options);
        if (!store)
            qWarning("%s", qPrintable(store.error().message));
        return store ? std::move(store.value()) : nullptr;
    }

private Q_SLOTS:
    void aChangeThatWasNotWrittenNeverTakesEffect_data();
    void aChangeThatWasNotWrittenNeverTakesEffect();
    void aConsumeThatFailedLeasesNothing();
    void aFailedSyncEverySecondStopsChanges();
    void aCompactionThatCannotWriteItsSnapshotLosesNothing();
    void aSpoolThatCannotWriteRefusesAndRecovers();
    void aCompactionThatCannotStartItsJournalChangesNothing();
};

void TestJournalFaults::aChangeThatWasNotWrittenNeverTakesEffect_data()
{
    QTest::addColumn<int>("fsync");
    QTest::addColumn<QByteArray>("fault");
    const int always = int(JournalWriter::Fsync::Always);
    const int never = int(JournalWriter::Fsync::Never);
    QTest::addRow("full-disk-always") << always << QByteArray("write=enospc");
    QTest::addRow("full-disk-mid-batch-always") << always << QByteArray("write=enospc after=700");
    QTest::addRow("full-disk-mid-batch-no-fsync") << never << QByteArray("write=enospc after=700");
    QTest::addRow("write-eio-always") << always << QByteArray("write=eio");
    QTest::addRow("write-eio-no-fsync") << never << QByteArray("write=eio after=100");
    QTest::addRow("fdatasync-eio-always") << always << QByteArray("sync=eio");
}

void TestJournalFaults::aChangeThatWasNotWrittenNeverTakesEffect()
{
    QFETCH(int, fsync);
    QFETCH(QByteArray, fault);
    FaultGuard guard;
    QTemporaryDir dir;
    const QString path = dir.filePath("faulty.journal");
    auto store = open(path, JournalWriter::Fsync(fsync));
    QVERIFY(store);
    get<QueueInfo>([&](auto d) { store->createQueue("orders", QueueConfig{}, d); });
    for (int n = 0; n < 5; ++n)
        get<PublishResult>([&](auto d) { store->publish("orders", {message(n)}, "alice", d); });
    const QString before = dump(*store);

    // Three publishes of one turn share a batch; the fault hits it (cut short after 700 bytes:
    // in the middle of the second record).
    brokerfault_configure(QByteArray("match=faulty.journal " + fault).constData());
    std::vector<std::optional<Result<PublishResult>>> answers(3);
    for (int i = 0; i < 3; ++i)
        store->publish("orders", {message(10 + i)}, "alice", [&answers, i](Result<PublishResult> r) { answers[size_t(i)].emplace(r); });
    QTRY_VERIFY(std::all_of(answers.begin(), answers.end(), [](const auto &a) { return a.has_value(); }));
    for (const auto &answer : answers) {
        QVERIFY(!answer->ok());
        QCOMPARE(answer->error().code, ErrorCode::Unavailable);
        QCOMPARE(answer->error().message, QStringLiteral("Journal write failed"));
        QVERIFY2(!answer->error().detail.contains(dir.path()), qPrintable(answer->error().detail));
    }
    QVERIFY(brokerfault_failures() > 0);

    // Read-only: changes are refused at once, reads go on, the memory holds what the disk holds.
    QVERIFY(!store->status().writable);
    QVERIFY(store->status().readOnlyReason.contains(fsync == int(JournalWriter::Fsync::Always) && fault.startsWith("sync")
                                                        ? "fdatasync" : "write"));
    QVERIFY(!store->status().readOnlyReason.contains(dir.path()));
    QCOMPARE(store->health(), HealthStatus::Degraded);
    const Result<PublishResult> refused = awaitResult<PublishResult>([&](auto d) { store->publish("orders", {message(99)}, "alice", d); });
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().message, QStringLiteral("Storage is read-only"));
    QTRY_COMPARE(dump(*store), before);
    // The file ends with a complete record: nothing half-written stays in it.
    const Result<JournalFile::ReadResult> onDisk = JournalFile::read(path);
    QVERIFY(onDisk.ok());
    QVERIFY(!onDisk->tornTail);
    // A crash now: the files as they are start exactly the acknowledged state.
    QVERIFY(QFile::copy(path, dir.filePath("crash-image.journal")));

    // Writes work again: the store notices by itself and takes changes.
    brokerfault_configure("off");
    QTRY_VERIFY(store->status().writable);
    QCOMPARE(store->health(), HealthStatus::Healthy);
    get<PublishResult>([&](auto d) { store->publish("orders", {message(20)}, "alice", d); });
    const QString after = dump(*store);
    store.reset();
    auto restarted = open(path, JournalWriter::Fsync(fsync));
    QVERIFY(restarted);
    QCOMPARE(dump(*restarted), after);
    auto crashed = open(dir.filePath("crash-image.journal"), JournalWriter::Fsync(fsync));
    QVERIFY(crashed);
    QCOMPARE(dump(*crashed), before);
}

void TestJournalFaults::aConsumeThatFailedLeasesNothing()
{
    FaultGuard guard;
    QTemporaryDir dir;
    auto store = open(dir.filePath("lease.journal"), JournalWriter::Fsync::Always);
    QVERIFY(store);
    get<QueueInfo>([&](auto d) { store->createQueue("jobs", QueueConfig{}, d); });
    get<PublishResult>([&](auto d) { store->publish("jobs", {message(1)}, "alice", d); });
    brokerfault_configure("match=lease.journal sync=eio");
    ConsumeRequest lease;
    lease.acknowledge = false;
    const Result<QList<Message>> failed = awaitResult<QList<Message>>([&](auto d) { store->consume("jobs", lease, d); });
    QVERIFY(!failed.ok());
    brokerfault_configure("off");
    QTRY_VERIFY(store->status().writable);
    const QList<Message> delivered = get<QList<Message>>([&](auto d) { store->consume("jobs", lease, d); });
    QCOMPARE(delivered.size(), 1);
    QCOMPARE(delivered.first().deliveryCount, 1); // the failed delivery never happened
}

void TestJournalFaults::aFailedSyncEverySecondStopsChanges()
{
    // With fsync everysec a change is answered once written; the sync a second later fails. The
    // kernel may have dropped those pages, so the journal is cut back to what the last good sync
    // covered and the store rebuilt from it (what a crash would have lost anyway), and changes
    // stop until a sync works again.
    FaultGuard guard;
    QTemporaryDir dir;
    const QString path = dir.filePath("everysec.journal");
    auto store = open(path, JournalWriter::Fsync::EverySecond);
    QVERIFY(store);
    get<QueueInfo>([&](auto d) { store->createQueue("q", QueueConfig{}, d); });
    QTRY_VERIFY_WITH_TIMEOUT(store->writer().stats().syncs >= 1, 5000); // the queue is on disk
    const QString synced = dump(*store);
    brokerfault_configure("match=everysec.journal sync=eio");
    get<PublishResult>([&](auto d) { store->publish("q", {message(1)}, "alice", d); });
    QVERIFY(dump(*store).contains("depth=1"));
    QTRY_VERIFY_WITH_TIMEOUT(!store->status().writable, 5000);
    QVERIFY(store->status().readOnlyReason.contains("fdatasync"));
    QTRY_COMPARE(dump(*store), synced);
    QVERIFY(!JournalFile::read(path)->tornTail);
    brokerfault_configure("off");
    QTRY_VERIFY(store->status().writable);
    get<PublishResult>([&](auto d) { store->publish("q", {message(2)}, "alice", d); });
    const QString after = dump(*store);
    store.reset();
    auto reopened = open(path, JournalWriter::Fsync::EverySecond);
    QVERIFY(reopened);
    QCOMPARE(dump(*reopened), after);
}

void TestJournalFaults::aCompactionThatCannotWriteItsSnapshotLosesNothing()
{
    // The snapshot's file system is full: the compaction fails, the journal goes on in P.next,
    // no later compaction may start P.next over, and the next start finishes the compaction.
    FaultGuard guard;
    QTemporaryDir dir;
    const QString path = dir.filePath("compact.journal");
    auto store = open(path, JournalWriter::Fsync::Never);
    QVERIFY(store);
    get<QueueInfo>([&](auto d) { store->createQueue("q", QueueConfig{}, d); });
    for (int n = 0; n < 20; ++n)
        get<PublishResult>([&](auto d) { store->publish("q", {message(n)}, "alice", d); });
    brokerfault_configure("match=compact.journal.snapshot write=enospc");
    QVERIFY(store->compact());
    store->finishCompaction();
    QCOMPARE(store->compactionStats().failed, 1);
    QCOMPARE(store->compactionStats().completed, 0);
    QVERIFY(store->status().writable); // the journal itself takes writes
    for (int n = 20; n < 25; ++n)
        get<PublishResult>([&](auto d) { store->publish("q", {message(n)}, "alice", d); });
    QVERIFY(!store->compact());
    const QString state = dump(*store);
    QVERIFY(state.contains("depth=25"));
    brokerfault_configure("off");
    store.reset();

    auto reopened = open(path, JournalWriter::Fsync::Never);
    QVERIFY(reopened);
    QCOMPARE(dump(*reopened), state);
    QVERIFY(QFile::exists(path + ".snapshot"));
    QVERIFY(!QFile::exists(path + ".next"));
}

void TestJournalFaults::aSpoolThatCannotWriteRefusesAndRecovers()
{
    // The publish spool (Redis out of reach) on a full disk: a batch that is not on disk is
    // refused and never drained; the spool takes batches again once the disk does.
    FaultGuard guard;
    QTemporaryDir dir;
    const QString path = dir.filePath("publish.spool");
    auto spool = PublishSpool::open(path);
    QVERIFY(spool.ok());
    auto append = [&](const QByteArray &payload) {
        return awaitResult<void>([&](auto d) { (*spool)->append("q", QueueConfig{}, {PublishSpool::Message{0, payload}}, d); });
    };
    QVERIFY(append("kept-1").ok());
    brokerfault_configure("match=publish.spool write=enospc after=10");
    const Result<void> refused = append("refused");
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, ErrorCode::Unavailable);
    QVERIFY(!append("refused-too").ok()); // the probe before it fails as well
    QCOMPARE((*spool)->batchCount(), 1);
    QCOMPARE((*spool)->messageCount(), 1);
    brokerfault_configure("off");
    // The next probe goes out a second after the last one; until then appends are refused.
    bool kept = false;
    for (int attempt = 0; attempt < 50 && !kept; ++attempt) {
        kept = append("kept-2").ok();
        if (!kept)
            QTest::qWait(100);
    }
    QVERIFY(kept);
    QCOMPARE((*spool)->batchCount(), 2);
    spool.value().reset();

    auto reopened = PublishSpool::open(path);
    QVERIFY(reopened.ok());
    QCOMPARE((*reopened)->batchCount(), 2);
    QCOMPARE((*reopened)->front().messages.first().stored, QByteArray("kept-1"));
    (*reopened)->drained();
    QCOMPARE((*reopened)->front().messages.first().stored, QByteArray("kept-2"));
}

void TestJournalFaults::aCompactionThatCannotStartItsJournalChangesNothing()
{
    // P.next's Base record cannot be written: no snapshot may replace the one P builds on, the
    // half-made P.next goes, and the journal goes on where it was.
    FaultGuard guard;
    QTemporaryDir dir;
    const QString path = dir.filePath("start.journal");
    auto store = open(path, JournalWriter::Fsync::Never);
    QVERIFY(store);
    get<QueueInfo>([&](auto d) { store->createQueue("q", QueueConfig{}, d); });
    get<PublishResult>([&](auto d) { store->publish("q", {message(1)}, "alice", d); });
    brokerfault_configure("match=start.journal.next write=enospc after=12");
    QVERIFY(!store->compact());
    QCOMPARE(store->compactionStats().failed, 1);
    QVERIFY(!QFile::exists(path + ".next"));
    QVERIFY(!QFile::exists(path + ".snapshot"));
    brokerfault_configure("off");
    QVERIFY(store->status().writable);
    get<PublishResult>([&](auto d) { store->publish("q", {message(2)}, "alice", d); });
    const QString state = dump(*store);
    store.reset();
    auto reopened = open(path, JournalWriter::Fsync::Never);
    QVERIFY(reopened);
    QCOMPARE(dump(*reopened), state);
}

QTEST_GUILESS_MAIN(TestJournalFaults)
#include "tst_journalfaults.moc"
