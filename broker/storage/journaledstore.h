// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "journalrecord.h"
#include "journal/journalwriter.h"
#include "memorystore.h"
#include "core/queuestore.h"

#include "core/clock.h"

#include <QString>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace Broker {

// Where a journaled store keeps its files and how it writes them (JournaledStore::Options).
struct JournaledStoreOptions
{
    QString path;
    JournalWriter::Fsync fsync = DefaultFsyncPolicy;
    // Compaction (a snapshot plus a fresh journal) starts when the journal is larger than
    // both `compactMinBytes` and `compactFactor` times the last snapshot.
    qint64 compactMinBytes = 64 * 1024 * 1024;
    double compactFactor = 2.0;
    // Tests: a compaction stops at this step as if the process had died there.
    enum class Step { None, JournalSwitched, SnapshotWritten };
    Step stopCompactionAfter = Step::None;
    // While read-only: how often a probe record is tried (milliseconds).
    qint64 retryIntervalMs = 1000;
};

// The memory store made durable: every change is appended to a journal (JournalRecord, group
// commit through JournalWriter) and its completion — the answer to the client — runs only once
// the record is written, and with fsync `always` synced. Reads pass straight through. Opening
// replays the journal into an empty memory store, which rebuilds the exact state (the memory
// store is deterministic given each operation's time and the receipts it drew, and both are in
// the records). Lives in the engine's thread.
//
// When a journal write or sync fails (full disk, I/O error) the store turns read-only: the
// changes whose records did not reach the disk are answered with an error and undone (the memory
// store is rebuilt from the files, which the writer has cut back to their last complete record),
// every further change is refused at once with 503, reads go on, health says degraded, and a
// probe record is tried every `retryIntervalMs` until one is written and synced.
class JournaledStore final : public QueueStore, private StoreListener
{
public:
    using Options = JournaledStoreOptions;
    struct ReplayReport
    {
        qint64 records = 0;
        qint64 bytes = 0;
        bool tornTail = false; // bytes after the last intact record (a write cut short) were dropped
        qint64 droppedBytes = 0;
        bool droppedAllZero = false; // they were all zeros (what a crash leaves in an extended file)
        QString keptTailPath;        // where a copy of them was kept
        qint64 elapsedMs = 0;
        qint64 snapshotBytes = 0; // the snapshot the replay started from (0: none)
    };
    struct CompactionStats
    {
        qint64 completed = 0;
        qint64 failed = 0;
        qint64 lastSnapshotBytes = 0;
        qint64 lastPauseMs = 0; // the engine's thread stood still this long
    };

    // Reads and replays the journal at options.path (a missing file is an empty journal), then
    // opens it for appending. Damage in the middle of the file is an error naming the offset;
    // `brokerd --repair-journal` keeps every intact record.
    static Result<std::unique_ptr<JournaledStore>> open(const QueueTypeCatalog &types, const Clock &clock,
                                                        const Options &options, ReplayReport *report = nullptr);
    struct RepairReport
    {
        qint64 kept = 0;          // records in the repaired journal
        qint64 skippedBytes = 0;  // damaged bytes between intact records
        qint64 undecodable = 0;   // intact frames whose content this build does not understand
        qint64 dependent = 0;     // records that fail without what was dropped (an ack of a lost publish, ...)
        qint64 adjusted = 0;      // records kept with the receipts they draw now
        QStringList damaged;      // "offset N: ..."
        QString originalCopy;     // where the journal as it was is kept
    };
    // Offline (the broker is not running): rewrites the journal at `path` so that it replays. Every
    // intact record is run again in order on the state it builds on; records that fail now are
    // dropped, the others are kept exactly as they now run. The original is kept (originalCopy).
    static Result<RepairReport> repair(const QueueTypeCatalog &types, const Clock &clock, const QString &path);
    ~JournaledStore() override;

    QString backendName() const override { return m_memory.backendName(); }
    HealthStatus health() const override { return m_readOnlyReason ? HealthStatus::Degraded : HealthStatus::Healthy; }
    StoreStatus status() const override;
    void setListener(StoreListener *listener) override { m_listener = listener; }
    void flush() override { m_writer->flushNow(); }
    const JournalWriter &writer() const { return *m_writer; }
    // The journal's size now, header included.
    qint64 journalBytes() const { return m_journalBytesAtOpen + m_writer->stats().bytes; }
    const CompactionStats &compactionStats() const { return m_compactionStats; }
    bool isCompacting() const { return m_compaction.has_value(); }
    // Starts a compaction now, whatever the size (also used by tests); false when one is running.
    bool compact();
    // Waits for a running compaction's background part to end (shutdown, tests).
    void finishCompaction();

    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done) override;
    void deleteQueue(const QString &name, Completion<qint64> done) override;
    void purgeQueue(const QString &name, Completion<qint64> done) override;
    void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done) override;
    void listQueues(Completion<QList<QueueInfo>> done) override { m_memory.listQueues(std::move(done)); }
    void queueInfo(const QString &name, Completion<QueueInfo> done) override { m_memory.queueInfo(name, std::move(done)); }
    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done) override;
    void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done) override;
    void ack(const QString &name, const MessageRef &ref, Completion<void> done) override;
    void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done) override;
    void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done) override;
    void browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done) override
    {
        m_memory.browse(name, query, std::move(done));
    }
    void messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done) override;
    void redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done) override;
    void runMaintenance(Completion<qint64> done) override;

private:
    // The memory store's clock: the system's, except that it stands still for the length of one
    // operation (live: at the operation's start; replay: at the recorded time), so that one
    // operation sees one time, as its record says.
    class OperationClock final : public Clock
    {
    public:
        explicit OperationClock(const Clock &system) : m_system(system) {}
        qint64 nowMs() const override { return m_held ? m_heldMs : m_system.nowMs(); }
        qint64 monotonicMs() const override { return m_system.monotonicMs(); }
        void hold(qint64 ms) { m_held = true; m_heldMs = ms; }
        void release() { m_held = false; }

    private:
        const Clock &m_system;
        bool m_held = false;
        qint64 m_heldMs = 0;
    };

    JournaledStore(const QueueTypeCatalog &types, const Clock &clock, Options options);
    Result<void> replayAll(const QList<QByteArray> &records, const QString &path, ReplayReport &report);
    // Rebuilds the memory store from the files: snapshot, journal, and P.next of a compaction in
    // progress. Used to undo the changes whose records could not be written.
    Result<void> reloadFromDisk();
    // Writer failure hook: refuse changes from now on, undo the unwritten ones on the next turn.
    void enterReadOnly(const Error &error);
    void retryWrites();
    // To the error log through the engine (no paths: the log lines above have them).
    void report(StoreIncident::Level level, const QString &code, const QString &message);
    // The answer to a change while read-only; nullopt when changes are accepted.
    std::optional<Error> readOnlyError() const;
    Result<void> openWriter(const QString &path, qint64 validBytes);
    Result<void> writeSessionStart(JournalWriter &writer, quint64 baseSnapshot);
    void adoptWriter(std::unique_ptr<JournalWriter> writer);
    void compactIfLarge();
    void collectCompaction(bool wait);
    // StoreListener: passes the memory store's events on, counting them, so that a maintenance
    // run that did nothing leaves no record (an idle broker's journal does not grow).
    void messageEvent(const MessageEvent &event) override;
    void messagesAvailable(const QString &queue) override;
    Result<void> replay(const JournalRecord &record);

    template<typename Sink>
    void apply(const JournalRecord &record, Sink &&sink);
    // Applies `record` to the memory store with the clock held and receipts captured, then
    // journals it when `shouldLog(result)` says so and completes after it is written (or at once,
    // when `waitForDisk` is false for this result: nothing in the answer needs to be durable).
    template<typename T, typename Decide>
    void journaled(JournalRecord record, Decide shouldLog, Completion<T> done);

    struct Compaction
    {
        std::thread thread;
        std::shared_ptr<std::atomic<int>> state; // 0 running, 1 done, 2 failed
        std::shared_ptr<QString> error;
    };

    Options m_options;
    OperationClock m_clock;
    MemoryStore m_memory;
    std::unique_ptr<JournalWriter> m_writer;
    qint64 m_journalBytesAtOpen = 0;
    qint64 m_lastSnapshotBytes = 0;
    std::optional<Compaction> m_compaction;
    CompactionStats m_compactionStats;
    StoreListener *m_listener = nullptr;
    quint64 m_activity = 0; // events and availability signals so far
    bool m_replaying = false;
    bool m_repairing = false; // repair(): receipts beyond the recorded ones are drawn afresh
    std::optional<QString> m_readOnlyReason; // set while journal writes fail; safe to show
    bool m_reloadPending = false;
    // Whether the writer's file is P. After a compaction failed it is still P.next (the next start
    // finishes the compaction), and no other compaction may start over that file.
    bool m_writerOnJournal = true;
    qint64 m_readOnlySinceMs = 0;
    qint64 m_writeFailures = 0;
    QTimer m_retryTimer;
    std::vector<quint64> m_receipts; // live: drawn by the running operation; replay: to hand out
    size_t m_nextReceipt = 0;
};

} // namespace Broker
