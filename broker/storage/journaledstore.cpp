// SPDX-License-Identifier: GPL-3.0-or-later
#include "journaledstore.h"

#include "journal/journalcompaction.h"
#include "journal/journalfile.h"

#include "errors/logging.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QScopeGuard>

#include <optional>

#include <cerrno>
#include <sys/wait.h>
#include <unistd.h>

namespace Broker {

namespace {

Completion<void> ignore()
{
    return [](Result<void>) {};
}

} // namespace

JournaledStore::JournaledStore(const QueueTypeCatalog &types, const Clock &clock, Options options)
    : m_options(std::move(options)), m_clock(clock), m_memory(types, m_clock)
{
    m_memory.setListener(this);
    m_memory.setReceiptSource([this]() -> quint64 {
        if (m_replaying) {
            // A record always carries the receipts its operation drew; running out means the
            // journal and this build disagree about what an operation does (a repair lets the
            // operation draw what it now needs, and keeps that).
            if (m_nextReceipt < m_receipts.size())
                return m_receipts[m_nextReceipt++];
            if (!m_repairing)
                return 0;
            ++m_nextReceipt;
        }
        const quint64 receipt = QRandomGenerator::global()->generate64();
        m_receipts.push_back(receipt);
        return receipt;
    });
    m_retryTimer.callOnTimeout([this] { retryWrites(); });
}

void JournaledStore::messageEvent(const MessageEvent &event)
{
    ++m_activity;
    if (m_listener && !m_replaying)
        m_listener->messageEvent(event);
}

void JournaledStore::messagesAvailable(const QString &queue)
{
    ++m_activity;
    if (m_listener && !m_replaying)
        m_listener->messagesAvailable(queue);
}

JournaledStore::~JournaledStore()
{
    collectCompaction(true);
    if (m_writer) {
        m_writer->setFailureHook({}); // a failure now has nobody left to tell
        m_writer.reset();
    }
}

Result<std::unique_ptr<JournaledStore>> JournaledStore::open(const QueueTypeCatalog &types, const Clock &clock,
                                                             const Options &options, ReplayReport *report)
{
    QElapsedTimer timer;
    timer.start();
    std::unique_ptr<JournaledStore> store(new JournaledStore(types, clock, options));
    Result<JournalCompaction::Recovered> recovered = JournalCompaction::recover(options.path, &JournalRecord::baseOf);
    if (!recovered)
        return recovered.error();
    ReplayReport replayed;
    replayed.tornTail = recovered->tornTail;
    replayed.droppedBytes = recovered->droppedBytes;
    replayed.droppedAllZero = recovered->droppedAllZero;
    replayed.snapshotBytes = recovered->snapshotBytes;
    store->m_replaying = true;
    if (recovered->snapshot) {
        if (const Result<void> loaded = store->m_memory.loadState(*recovered->snapshot); !loaded)
            return Error{ErrorCode::Internal, QStringLiteral("%1: %2").arg(JournalCompaction::snapshotPath(options.path),
                                                                           loaded.error().message)};
    }
    if (const Result<void> ok = store->replayAll(recovered->records, options.path, replayed); !ok)
        return ok.error();

    // Finish a compaction a crash interrupted; afterwards the journal is P again.
    using Unfinished = JournalCompaction::Recovered::Unfinished;
    Result<void> finished;
    switch (recovered->unfinished) {
    case Unfinished::None: break;
    case Unfinished::Promote: finished = JournalCompaction::promoteNext(options.path); break;
    case Unfinished::DropNext:
        finished = QFile::remove(JournalCompaction::nextPath(options.path))
            ? Result<void>()
            : Result<void>(Error{ErrorCode::Unavailable, QStringLiteral("cannot remove %1").arg(JournalCompaction::nextPath(options.path))});
        break;
    case Unfinished::SnapshotThenPromote: {
        // The snapshot P.next builds on is the state right here, between P's records and its own.
        const QByteArray state = store->m_memory.saveState();
        if (const Result<void> ok = store->replayAll(recovered->nextRecords, JournalCompaction::nextPath(options.path), replayed); !ok)
            return ok.error();
        finished = JournalCompaction::writeSnapshot(options.path, recovered->nextBase, state);
        if (finished)
            finished = JournalCompaction::promoteNext(options.path);
        replayed.snapshotBytes = state.size();
        break;
    }
    }
    if (!finished)
        return finished.error();
    store->m_replaying = false;
    store->m_clock.release();
    store->m_lastSnapshotBytes = replayed.snapshotBytes;
    if (const Result<void> opened = store->openWriter(options.path, recovered->liveValidBytes); !opened)
        return opened.error();
    replayed.keptTailPath = store->m_writer->keptTailPath();
    // A failure here leaves the store read-only (the writer's hook), not closed: it starts, and
    // takes changes once the disk does.
    (void)store->writeSessionStart(*store->m_writer, 0);
    replayed.elapsedMs = timer.elapsed();
    if (report)
        *report = replayed;
    return store;
}

Result<JournaledStore::RepairReport> JournaledStore::repair(const QueueTypeCatalog &types, const Clock &clock,
                                                            const QString &path)
{
    Result<JournalFile::Salvaged> salvaged = JournalFile::salvage(path);
    if (!salvaged)
        return salvaged.error();
    RepairReport report;
    report.skippedBytes = salvaged->skippedBytes;
    report.damaged = salvaged->damaged;
    std::unique_ptr<JournaledStore> store(new JournaledStore(types, clock, Options{path}));
    const quint64 base = salvaged->records.isEmpty() ? 0 : JournalRecord::baseOf(salvaged->records.first());
    if (base != 0) {
        Result<std::optional<JournalCompaction::Snapshot>> snapshot = JournalCompaction::loadSnapshot(path);
        if (!snapshot)
            return snapshot.error();
        if (!*snapshot || (*snapshot)->id != base)
            return Error{ErrorCode::Internal, QStringLiteral("%1 builds on a snapshot that is missing (%2); nothing to repair it on")
                                                  .arg(path, JournalCompaction::snapshotPath(path))};
        if (const Result<void> loaded = store->m_memory.loadState((*snapshot)->state); !loaded)
            return Error{ErrorCode::Internal, QStringLiteral("%1: %2").arg(JournalCompaction::snapshotPath(path), loaded.error().message)};
    }
    store->m_replaying = true;
    store->m_repairing = true;
    QList<QByteArray> kept;
    for (const QByteArray &payload : std::as_const(salvaged->records)) {
        Result<JournalRecord> record = JournalRecord::decode(payload);
        if (!record) {
            ++report.undecodable;
            continue;
        }
        store->m_clock.hold(record->timeMs);
        store->m_receipts.assign(record->receipts.begin(), record->receipts.end());
        store->m_nextReceipt = 0;
        bool failed = false;
        store->apply(*record, [&failed](const auto &result) { failed = failed || !result.ok(); });
        if (failed) {
            ++report.dependent; // a failed operation changed nothing: leaving it out changes nothing
            continue;
        }
        const QList<quint64> drawn(store->m_receipts.begin(), store->m_receipts.begin() + qsizetype(store->m_nextReceipt));
        if (drawn == record->receipts) {
            kept.append(payload);
        } else {
            JournalRecord adjusted = *record;
            adjusted.receipts = drawn;
            kept.append(adjusted.encode());
            ++report.adjusted;
        }
    }
    const Result<QString> copy = JournalFile::rewrite(path, kept);
    if (!copy)
        return copy.error();
    report.originalCopy = *copy;
    report.kept = kept.size();
    return report;
}

Result<void> JournaledStore::replayAll(const QList<QByteArray> &records, const QString &path, ReplayReport &report)
{
    for (const QByteArray &payload : records) {
        Result<JournalRecord> record = JournalRecord::decode(payload);
        Result<void> applied = record ? replay(*record) : Result<void>(record.error());
        if (!applied) {
            return Error{ErrorCode::Internal, QStringLiteral("%1: record %2 cannot be replayed: %3")
                                                  .arg(path)
                                                  .arg(report.records + 1)
                                                  .arg(applied.error().message)};
        }
        ++report.records;
        report.bytes += payload.size() + JournalFile::RecordOverhead;
    }
    return {};
}

Result<void> JournaledStore::openWriter(const QString &path, qint64 validBytes)
{
    Result<std::unique_ptr<JournalWriter>> writer = JournalWriter::open(path, m_options.fsync, validBytes);
    if (!writer)
        return writer.error();
    adoptWriter(std::move(writer.value()));
    return {};
}

void JournaledStore::adoptWriter(std::unique_ptr<JournalWriter> writer)
{
    m_writer = std::move(writer);
    m_writer->setFailureHook([this](const Error &error) { enterReadOnly(error); });
    m_journalBytesAtOpen = QFileInfo(m_writer->path()).size();
}

// A journal that starts from a snapshot says so first; every session then records where its
// message numbers start, never below the clock-seeded start (ids stay unique even if the
// journal was deleted meanwhile). Blocks until the records are written; the first failure is
// returned (and, for the store's own writer, has turned the store read-only).
Result<void> JournaledStore::writeSessionStart(JournalWriter &writer, quint64 baseSnapshot)
{
    std::optional<Error> failed;
    const auto note = [&failed](Result<void> written) {
        if (!written && !failed)
            failed = written.error();
    };
    if (baseSnapshot != 0) {
        JournalRecord base;
        base.kind = JournalRecord::Kind::Base;
        base.timeMs = m_clock.nowMs();
        base.sequence = baseSnapshot;
        writer.append(base.encode(), note);
    }
    const quint64 seed = std::max(m_memory.nextSequence(), quint64(m_clock.nowMs()) * 1000);
    m_memory.setNextSequence(seed);
    JournalRecord record;
    record.kind = JournalRecord::Kind::Seed;
    record.timeMs = m_clock.nowMs();
    record.sequence = seed;
    writer.append(record.encode(), note);
    if (const Result<void> synced = writer.syncNow(); !synced && !failed)
        failed = synced.error();
    if (failed)
        return *failed;
    return {};
}

bool JournaledStore::compact()
{
    // Not while writes fail, and not while a failed compaction's P.next is still the journal (a
    // new one would start P.next over): the next start finishes that one.
    if (m_compaction || m_readOnlyReason || !m_writerOnJournal)
        return false;
    // Everything so far is in the current journal; from here on records go to P.next, which
    // builds on the snapshot of this very moment.
    QElapsedTimer pause;
    pause.start();
    m_writer->flushNow();
    if (m_readOnlyReason)
        return false; // that flush failed
    quint64 id = 0;
    while (id == 0)
        id = QRandomGenerator::global()->generate64();
    const QString journal = m_options.path;
    const QString next = JournalCompaction::nextPath(journal);
    const Options::Step stopAfter = m_options.stopCompactionAfter;

    // P.next, its Base record synced, comes before the snapshot: the new snapshot replaces the one
    // P builds on, so a journal that builds on the new one must exist first. Until the fork
    // nothing else runs, so P.next starts exactly where the snapshot's state is taken.
    const quint64 sequenceBefore = m_memory.nextSequence();
    Result<std::unique_ptr<JournalWriter>> opened = JournalWriter::open(next, m_options.fsync, 0);
    const Result<void> started = opened ? writeSessionStart(**opened, id) : Result<void>(opened.error());
    if (!started) {
        // The seed that record would have carried is nowhere on disk: message numbers go on as
        // the journal says they do.
        m_memory.setNextSequence(sequenceBefore);
        ++m_compactionStats.failed;
        qCWarning(lcStorage).noquote() << QStringLiteral("journal compaction not started: %1").arg(started.error().message);
        if (opened)
            opened.value().reset();
        QFile::remove(next);
        return false;
    }

    // The state is serialised by a child process that fork() hands a copy-on-write image of this
    // moment (as Redis does for its snapshots): the engine stands still only for the fork. The
    // child runs nothing but the serialisation and the file writes (malloc is fork-safe in glibc)
    // and leaves with _exit. Where fork fails, the state is serialised here instead.
    QByteArray state;
    const pid_t child = ::fork();
    if (child == 0) {
        bool written = true;
        if (stopAfter != Options::Step::JournalSwitched)
            written = JournalCompaction::writeSnapshot(journal, id, m_memory.saveState()).ok();
        ::_exit(written ? 0 : 1);
    }
    if (child < 0)
        state = m_memory.saveState();

    adoptWriter(std::move(opened.value()));
    m_writerOnJournal = false; // until P.next is renamed to P
    m_compactionStats.lastPauseMs = pause.elapsed();

    Compaction compaction;
    compaction.state = std::make_shared<std::atomic<int>>(0);
    compaction.error = std::make_shared<QString>();
    compaction.thread = std::thread([journal, id, child, state = std::move(state), done = compaction.state,
                                     error = compaction.error, stopAfter] {
        Result<void> result;
        if (child > 0) {
            int status = 0;
            pid_t waited = -1;
            do {
                waited = ::waitpid(child, &status, 0);
            } while (waited < 0 && errno == EINTR);
            if (waited != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                result = Error{ErrorCode::Unavailable, QStringLiteral("the process writing the snapshot failed")};
        } else if (stopAfter != Options::Step::JournalSwitched) {
            result = JournalCompaction::writeSnapshot(journal, id, state);
        }
        if (result && stopAfter == Options::Step::None)
            result = JournalCompaction::promoteNext(journal);
        if (!result)
            *error = result.error().message;
        done->store(result ? 1 : 2);
    });
    m_compaction = std::move(compaction);
    return true;
}

void JournaledStore::collectCompaction(bool wait)
{
    if (!m_compaction || (!wait && m_compaction->state->load() == 0))
        return;
    m_compaction->thread.join();
    if (m_compaction->state->load() == 1) {
        ++m_compactionStats.completed;
        m_writerOnJournal = true;
        m_lastSnapshotBytes = QFileInfo(JournalCompaction::snapshotPath(m_options.path)).size();
        m_compactionStats.lastSnapshotBytes = m_lastSnapshotBytes;
    } else {
        // The chain stays recoverable (old snapshot + journal + P.next); the next start finishes it.
        ++m_compactionStats.failed;
        qCWarning(lcStorage).noquote() << QStringLiteral("journal compaction failed: %1").arg(*m_compaction->error);
    }
    m_compaction.reset();
}

void JournaledStore::finishCompaction()
{
    collectCompaction(true);
}

void JournaledStore::compactIfLarge()
{
    collectCompaction(false);
    if (m_compaction)
        return;
    const double threshold = std::max(double(m_options.compactMinBytes), m_options.compactFactor * double(m_lastSnapshotBytes));
    if (double(journalBytes()) > threshold)
        compact();
}

// The one place a record turns into a memory store call, for live operations and replay alike.
// `sink` is called with the operation's result, whatever its type.
template<typename Sink>
void JournaledStore::apply(const JournalRecord &record, Sink &&sink)
{
    const auto forward = [&sink](auto result) { sink(result); };
    switch (record.kind) {
    case JournalRecord::Kind::Seed: m_memory.setNextSequence(record.sequence); break;
    case JournalRecord::Kind::Base: break; // the snapshot it names was loaded before
    case JournalRecord::Kind::CreateQueue: m_memory.createQueue(record.queue, record.config, forward); break;
    case JournalRecord::Kind::UpdateQueue: m_memory.updateQueue(record.queue, record.change, forward); break;
    case JournalRecord::Kind::DeleteQueue: m_memory.deleteQueue(record.queue, forward); break;
    case JournalRecord::Kind::PurgeQueue: m_memory.purgeQueue(record.queue, forward); break;
    case JournalRecord::Kind::Publish: m_memory.publish(record.queue, record.messages, record.user, forward); break;
    case JournalRecord::Kind::Consume: m_memory.consume(record.queue, record.consume, forward); break;
    case JournalRecord::Kind::Ack: m_memory.ack(record.queue, record.ref, forward); break;
    case JournalRecord::Kind::Nack: m_memory.nack(record.queue, record.ref, record.amount, forward); break;
    case JournalRecord::Kind::Extend: m_memory.extend(record.queue, record.ref, record.amount, forward); break;
    case JournalRecord::Kind::Redrive: m_memory.redrive(record.queue, record.amount, record.user, forward); break;
    case JournalRecord::Kind::Maintenance: m_memory.runMaintenance(forward); break;
    }
}

Result<void> JournaledStore::replay(const JournalRecord &record)
{
    // The engine checked the type when the queue was created; a broker that replays the journal
    // may not have registered it (an embedder's own type), and the queue must not come back with
    // another delivery order. The same rule and words as a snapshot's (MemoryStore::loadState).
    if (record.kind == JournalRecord::Kind::CreateQueue && !m_memory.queueTypes().contains(record.config.type))
        return Error{ErrorCode::Internal,
                     QStringLiteral("queue %1 has the unknown type '%2'").arg(record.queue, record.config.type)};
    m_clock.hold(record.timeMs);
    m_receipts.assign(record.receipts.begin(), record.receipts.end());
    m_nextReceipt = 0;
    std::optional<Error> failed;
    apply(record, [&failed](const auto &result) {
        if (!result.ok())
            failed = result.error();
    });
    // Every journaled operation succeeded when it ran; failing now means the state differs.
    if (failed)
        return Error{ErrorCode::Internal, failed->message};
    if (m_nextReceipt != m_receipts.size())
        return Error{ErrorCode::Internal, QStringLiteral("the operation drew fewer receipts than recorded")};
    return {};
}

template<typename T, typename Decide>
void JournaledStore::journaled(JournalRecord record, Decide shouldLog, Completion<T> done)
{
    if (std::optional<Error> refused = readOnlyError())
        return done(std::move(*refused));
    record.timeMs = m_clock.nowMs();
    m_clock.hold(record.timeMs);
    m_receipts.clear();
    std::optional<Result<T>> result;
    apply(record, [&result](auto r) {
        if constexpr (std::is_same_v<decltype(r), Result<T>>)
            result.emplace(std::move(r));
    });
    m_clock.release();
    Q_ASSERT(result); // the memory store completes inside the call
    const auto [log, waitForDisk] = shouldLog(*result);
    if (!log)
        return done(std::move(*result));
    record.receipts = QList<quint64>(m_receipts.begin(), m_receipts.end());
    if (!waitForDisk) {
        m_writer->append(record.encode(), ignore());
        return done(std::move(*result));
    }
    m_writer->append(record.encode(), [done = std::move(done), result = std::move(*result)](Result<void> written) mutable {
        // The change is in memory but not on disk: the store is read-only by now and undoes it
        // on the next turn (see enterReadOnly), so the failure answered is the whole truth.
        if (!written)
            return done(Error{ErrorCode::Unavailable, QStringLiteral("Journal write failed"),
                              QStringLiteral("%1; the change was not made").arg(written.error().message)});
        done(std::move(result));
    });
}

namespace {

// Changes the client is told about wait for the disk; failures changed nothing and are not kept.
template<typename T>
auto whenSucceeded()
{
    return [](const Result<T> &result) { return std::pair{result.ok(), true}; };
}

} // namespace

void JournaledStore::createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::CreateQueue, name);
    record.config = config;
    journaled<QueueInfo>(std::move(record), whenSucceeded<QueueInfo>(), std::move(done));
}

void JournaledStore::updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::UpdateQueue, name);
    record.change = change;
    journaled<QueueInfo>(std::move(record), whenSucceeded<QueueInfo>(), std::move(done));
}

void JournaledStore::deleteQueue(const QString &name, Completion<qint64> done)
{
    journaled<qint64>(JournalRecord::of(JournalRecord::Kind::DeleteQueue, name), whenSucceeded<qint64>(), std::move(done));
}

void JournaledStore::purgeQueue(const QString &name, Completion<qint64> done)
{
    journaled<qint64>(JournalRecord::of(JournalRecord::Kind::PurgeQueue, name), whenSucceeded<qint64>(), std::move(done));
}

void JournaledStore::publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                             Completion<PublishResult> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::Publish, name);
    record.user = publisher;
    record.messages = messages;
    journaled<PublishResult>(std::move(record), whenSucceeded<PublishResult>(), std::move(done));
}

void JournaledStore::consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::Consume, name);
    record.consume = request; // stillWanted included: it is asked now, never written
    // Kept even when nothing was delivered (a consume may expire messages on its way), but then
    // the empty answer need not wait for the disk.
    journaled<QList<Message>>(
        std::move(record),
        [](const Result<QList<Message>> &result) { return std::pair{result.ok(), result.ok() && !result->isEmpty()}; },
        std::move(done));
}

void JournaledStore::ack(const QString &name, const MessageRef &ref, Completion<void> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::Ack, name);
    record.ref = ref;
    journaled<void>(std::move(record), whenSucceeded<void>(), std::move(done));
}

void JournaledStore::nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::Nack, name);
    record.ref = ref;
    record.amount = delayMs;
    journaled<NackResult>(std::move(record), whenSucceeded<NackResult>(), std::move(done));
}

void JournaledStore::extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::Extend, name);
    record.ref = ref;
    record.amount = visibilityMs;
    journaled<qint64>(std::move(record), whenSucceeded<qint64>(), std::move(done));
}

void JournaledStore::redrive(const QString &name, qint64 limit, const QString &user, Completion<qint64> done)
{
    JournalRecord record = JournalRecord::of(JournalRecord::Kind::Redrive, name);
    record.amount = limit;
    record.user = user;
    journaled<qint64>(std::move(record), whenSucceeded<qint64>(), std::move(done));
}

void JournaledStore::runMaintenance(Completion<qint64> done)
{
    // Expiries, lease returns and released delays happen here, each with an event or an
    // availability signal; a run without any changed nothing and is not kept. Nobody waits on it.
    // While read-only it waits: its changes could not be kept either.
    if (m_readOnlyReason)
        return done(0);
    const quint64 activityBefore = m_activity;
    journaled<qint64>(JournalRecord::of(JournalRecord::Kind::Maintenance, {}),
                      [&](const Result<qint64> &) { return std::pair{m_activity != activityBefore, false}; },
                      std::move(done));
    compactIfLarge();
}

} // namespace Broker
