// SPDX-License-Identifier: GPL-3.0-or-later
// JournaledStore when its disk fails: read-only, the unwritten changes undone by rebuilding from
// the files, probes until writes work again, and what it tells health and the error log.
#include "journaledstore.h"

#include "journal/journalcompaction.h"

#include "errors/logging.h"

#include <QScopeGuard>

namespace Broker {

void JournaledStore::enterReadOnly(const Error &error)
{
    ++m_writeFailures;
    m_readOnlyReason = QStringLiteral("journal writes are failing (%1)").arg(error.message);
    m_readOnlySinceMs = m_clock.nowMs();
    qCWarning(lcStorage).noquote() << QStringLiteral("journal %1: %2; changes are refused until a write succeeds again")
                                          .arg(m_writer->path(), error.message);
    report(StoreIncident::Level::Error, QStringLiteral("journal_read_only"),
           QStringLiteral("Changes are refused: %1. The broker retries every second.").arg(*m_readOnlyReason));
    // The changes applied since the last record that reached the disk are undone on the next turn
    // of the event loop, after their clients have heard that they failed; meanwhile every change is
    // refused, so nothing builds on them.
    m_reloadPending = true;
    m_retryTimer.start(0);
}

void JournaledStore::retryWrites()
{
    if (m_reloadPending) {
        m_reloadPending = false;
        if (const Result<void> reloaded = reloadFromDisk(); !reloaded) {
            // The state in memory may hold changes the disk does not: keep refusing changes for
            // good (a restart replays what is on disk).
            m_readOnlyReason = QStringLiteral("the journal cannot be read back; restart the broker");
            m_retryTimer.stop();
            qCCritical(lcStorage).noquote() << QStringLiteral("journal %1: %2").arg(m_writer->path(), reloaded.error().message);
            report(StoreIncident::Level::Error, QStringLiteral("journal_unreadable"),
                   QStringLiteral("The journal could not be read back after a failed write; changes are refused until "
                                  "the broker is restarted."));
            return;
        }
        m_retryTimer.start(int(m_options.retryIntervalMs));
        return;
    }
    JournalRecord probe;
    probe.kind = JournalRecord::Kind::Seed;
    probe.timeMs = m_clock.nowMs();
    probe.sequence = m_memory.nextSequence();
    if (const Result<void> written = m_writer->recover(probe.encode()); !written) {
        m_readOnlyReason = QStringLiteral("journal writes are failing (%1)").arg(written.error().message);
        return;
    }
    qCInfo(lcStorage).noquote() << QStringLiteral("journal %1: writes succeed again after %2 s; changes are accepted")
                                       .arg(m_writer->path())
                                       .arg((m_clock.nowMs() - m_readOnlySinceMs) / 1000.0, 0, 'f', 1);
    m_readOnlyReason.reset();
    m_retryTimer.stop();
    report(StoreIncident::Level::Info, QStringLiteral("journal_writable"),
           QStringLiteral("Journal writes succeed again; changes are accepted."));
}

Result<void> JournaledStore::reloadFromDisk()
{
    collectCompaction(true);
    Result<JournalCompaction::Recovered> recovered = JournalCompaction::recover(m_options.path, &JournalRecord::baseOf);
    if (!recovered)
        return recovered.error();
    m_memory.clear();
    m_replaying = true;
    auto done = qScopeGuard([this] {
        m_replaying = false;
        m_clock.release();
    });
    if (recovered->snapshot) {
        if (const Result<void> loaded = m_memory.loadState(*recovered->snapshot); !loaded)
            return loaded.error();
    }
    ReplayReport report;
    if (const Result<void> ok = replayAll(recovered->records, m_options.path, report); !ok)
        return ok.error();
    if (const Result<void> ok = replayAll(recovered->nextRecords, JournalCompaction::nextPath(m_options.path), report); !ok)
        return ok.error();
    return {};
}

void JournaledStore::report(StoreIncident::Level level, const QString &code, const QString &message)
{
    if (m_listener)
        m_listener->storeIncident({level, code, message});
}

std::optional<Error> JournaledStore::readOnlyError() const
{
    if (!m_readOnlyReason)
        return std::nullopt;
    return Error{ErrorCode::Unavailable, QStringLiteral("Storage is read-only"),
                 QStringLiteral("%1; the broker retries by itself").arg(*m_readOnlyReason)};
}

StoreStatus JournaledStore::status() const
{
    StoreStatus status;
    status.writable = !m_readOnlyReason;
    status.readOnlyReason = m_readOnlyReason.value_or(QString());
    if (m_readOnlyReason)
        status.lastError = *m_readOnlyReason;
    return status;
}

} // namespace Broker
