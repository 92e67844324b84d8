// SPDX-License-Identifier: GPL-3.0-or-later
#include "publishspool.h"

#include "errors/logging.h"
#include "journal/journalfile.h"

#include <QDataStream>
#include <QFile>
#include <QFileInfo>
#include <QIODevice>
#include <QScopeGuard>
#include <QUuid>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace Broker {

namespace {

// Spooled (2) is what earlier versions wrote: a batch without its queue's configuration.
enum class RecordKind : quint8 { Identity = 1, Spooled = 2, Drained = 3, SpooledWithConfig = 4 };
constexpr QDataStream::Version StreamVersion = QDataStream::Qt_6_4;

QByteArray identityRecord(const QByteArray &identity, quint64 firstNumber)
{
    QByteArray out;
    QDataStream stream(&out, QIODevice::WriteOnly);
    stream.setVersion(StreamVersion);
    stream << quint8(RecordKind::Identity) << identity << firstNumber;
    return out;
}

// What a batch weighs against the byte limit: its messages as stored, plus their due times.
qint64 weightOf(const QList<PublishSpool::Message> &messages)
{
    qint64 bytes = 0;
    for (const PublishSpool::Message &message : messages)
        bytes += message.stored.size() + qint64(sizeof(message.dueMs));
    return bytes;
}

} // namespace

PublishSpool::PublishSpool(QString path, Limits limits, std::unique_ptr<JournalWriter> writer, int lockFd)
    : m_path(std::move(path)), m_writer(std::move(writer)), m_limits(limits), m_lockFd(lockFd)
{
}

void PublishSpool::count(const Batch &batch, int sign)
{
    m_messages += sign * batch.messages.size();
    m_bytes += sign * weightOf(batch.messages);
    qint64 &perQueue = m_perQueue[batch.queue];
    perQueue += sign * batch.messages.size();
    if (perQueue <= 0)
        m_perQueue.remove(batch.queue);
}

PublishSpool::~PublishSpool()
{
    if (m_writer)
        m_writer->flushNow();
    m_writer.reset();
    if (m_lockFd >= 0)
        ::close(m_lockFd); // releases the lock
}

Result<std::unique_ptr<PublishSpool>> PublishSpool::open(const QString &path, Limits limits)
{
    // Two brokers sharing one spool would drain each other's batches: the first one keeps it.
    const QByteArray lockName = QFile::encodeName(path + QStringLiteral(".lock"));
    const int lockFd = ::open(lockName.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lockFd < 0)
        return Error{ErrorCode::Unavailable, QStringLiteral("publish spool %1: cannot open its lock file: %2")
                                                 .arg(path, QString::fromLocal8Bit(std::strerror(errno)))};
    if (::flock(lockFd, LOCK_EX | LOCK_NB) != 0) {
        ::close(lockFd);
        return Error{ErrorCode::Unavailable,
                     QStringLiteral("publish spool %1 is in use by another broker; give each broker its own "
                                    "storage.redis.spool_path")
                         .arg(path)};
    }
    auto closeLock = qScopeGuard([lockFd] { ::close(lockFd); });
    qint64 validBytes = 0;
    QByteArray identity;
    quint64 nextNumber = 1;
    std::deque<Batch> batches;
    // Shorter than the journal's header: the broker died while creating the file, before any
    // batch could be in it (nothing was confirmed from it). Such a file is a new spool.
    if (QFile::exists(path) && QFileInfo(path).size() >= JournalFile::HeaderSize) {
        const Result<JournalFile::ReadResult> read = JournalFile::read(path);
        if (!read)
            return Error{ErrorCode::Unavailable, QStringLiteral("publish spool %1: %2").arg(path, read.error().message)};
        validBytes = read->validBytes;
        for (const QByteArray &record : read->records) {
            QDataStream in(record);
            in.setVersion(StreamVersion);
            quint8 kind = 0;
            in >> kind;
            switch (RecordKind(kind)) {
            case RecordKind::Identity:
                in >> identity >> nextNumber;
                batches.clear();
                break;
            case RecordKind::Spooled:
            case RecordKind::SpooledWithConfig: {
                Batch batch;
                quint32 count = 0;
                in >> batch.number >> batch.queue;
                if (RecordKind(kind) == RecordKind::SpooledWithConfig) {
                    QueueConfig config;
                    in >> config;
                    batch.config = config;
                }
                in >> count;
                for (quint32 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
                    Message message;
                    in >> message.dueMs >> message.stored;
                    batch.messages.append(message);
                }
                if (batch.config && !in.atEnd()) { // a partitioned queue's count, after the rest
                    qint32 partitions = 1;
                    in >> partitions;
                    batch.config->partitions = qMax(1, partitions);
                }
                nextNumber = std::max(nextNumber, batch.number + 1);
                batches.push_back(std::move(batch));
                break;
            }
            case RecordKind::Drained: {
                quint64 number = 0;
                in >> number;
                if (!batches.empty() && batches.front().number == number)
                    batches.pop_front();
                break;
            }
            default:
                return Error{ErrorCode::Unavailable,
                             QStringLiteral("publish spool %1: a record of unknown kind %2 (written by a newer "
                                            "version?)")
                                 .arg(path)
                                 .arg(kind)};
            }
            if (in.status() != QDataStream::Ok)
                return Error{ErrorCode::Unavailable, QStringLiteral("publish spool %1: a record is malformed").arg(path)};
        }
    }
    if (identity.isEmpty())
        validBytes = 0; // no identity yet: start the file over
    Result<std::unique_ptr<JournalWriter>> writer = JournalWriter::open(path, JournalWriter::Fsync::Always, validBytes);
    if (!writer)
        return writer.error();
    closeLock.dismiss();
    std::unique_ptr<PublishSpool> spool(new PublishSpool(path, limits, std::move(writer.value()), lockFd));
    if (identity.isEmpty()) {
        if (const Result<void> fresh = spool->startOver(); !fresh)
            return fresh.error();
    } else {
        spool->m_identity = identity;
        spool->m_nextNumber = nextNumber;
        spool->m_batches = std::move(batches);
        for (const Batch &batch : spool->m_batches)
            spool->count(batch, +1);
    }
    return spool;
}

Result<void> PublishSpool::startOver()
{
    // A new identity: the backend keeps no high-water mark for it, so numbering can restart.
    m_writer.reset();
    Result<std::unique_ptr<JournalWriter>> writer = JournalWriter::open(m_path, JournalWriter::Fsync::Always, 0);
    if (!writer)
        return writer.error();
    m_writer = std::move(writer.value());
    m_identity = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    m_nextNumber = 1;
    m_writer->append(identityRecord(m_identity, m_nextNumber), [](Result<void>) {});
    m_writer->flushNow();
    return {};
}

void PublishSpool::append(const QString &queue, const QueueConfig &config, QList<Message> messages,
                          std::function<void(Result<void>)> done)
{
    // No path in the text: it reaches clients (503 detail) and /errors.
    if (!m_writer)
        return done(Error{ErrorCode::Unavailable, QStringLiteral("The publish spool cannot be written")});
    const bool tooMany = m_limits.maxMessages > 0 && m_messages + messages.size() > m_limits.maxMessages;
    const bool tooBig = m_limits.maxBytes > 0 && m_bytes + weightOf(messages) > m_limits.maxBytes;
    if (tooMany || tooBig)
        return done(Error{ErrorCode::Unavailable,
                          QStringLiteral("Storage is unavailable and the publish spool is full"),
                          QStringLiteral("the spool holds %1 messages (%2 bytes); it takes at most %3 messages, %4 bytes")
                              .arg(m_messages)
                              .arg(m_bytes)
                              .arg(m_limits.maxMessages)
                              .arg(m_limits.maxBytes)});
    if (m_writer->hasFailed()) {
        // A write failed before (full disk, I/O error): the writer takes records again only once
        // a probe is on disk. A "drained" record for batch 0 is one that replays to nothing.
        const auto refuse = [&] {
            done(Error{ErrorCode::Unavailable, QStringLiteral("The publish spool cannot be written"), m_writeFailure});
        };
        if (m_lastProbe.isValid() && m_lastProbe.elapsed() < ProbeIntervalMs)
            return refuse();
        m_lastProbe.start();
        if (const Result<void> recovered = m_writer->recover(drainedRecord(0)); !recovered) {
            m_writeFailure = recovered.error().message;
            return refuse();
        }
    }
    Batch batch{m_nextNumber++, queue, config, std::move(messages)};
    QByteArray record;
    QDataStream out(&record, QIODevice::WriteOnly);
    out.setVersion(StreamVersion);
    out << quint8(RecordKind::SpooledWithConfig) << batch.number << batch.queue << config
        << quint32(batch.messages.size());
    for (const Message &message : std::as_const(batch.messages))
        out << message.dueMs << message.stored;
    // After the messages, so that a record of a plain queue is what earlier versions wrote and read.
    if (config.partitions > 1)
        out << qint32(config.partitions);
    // In the spool (and drainable) only once it is on disk: what a crash could lose is never drained.
    ++m_writing;
    count(batch, +1);
    m_writer->append(record, [this, batch = std::move(batch), done = std::move(done)](Result<void> written) mutable {
        --m_writing;
        if (written)
            m_batches.push_back(std::move(batch));
        else
            count(batch, -1);
        done(std::move(written));
    });
}

void PublishSpool::drained()
{
    if (m_batches.empty())
        return;
    const quint64 number = m_batches.front().number;
    count(m_batches.front(), -1);
    m_batches.pop_front();
    if (m_batches.empty() && m_writing == 0) {
        // Nothing waits: start the file over rather than let it grow. A crash before the fresh
        // identity is written leaves the old records, which replay to an empty spool as well.
        if (const Result<void> fresh = startOver(); !fresh)
            qCWarning(lcStorage).noquote() << "publish spool:" << fresh.error().message;
        return;
    }
    if (!m_writer)
        return;
    m_writer->append(drainedRecord(number), [](Result<void>) {});
}

QByteArray PublishSpool::drainedRecord(quint64 number)
{
    QByteArray record;
    QDataStream out(&record, QIODevice::WriteOnly);
    out.setVersion(StreamVersion);
    out << quint8(RecordKind::Drained) << number;
    return record;
}

} // namespace Broker
