// SPDX-License-Identifier: GPL-3.0-or-later
// PublishSpool: batches survive a restart in order, drained ones do not come back, an emptied
// spool starts over under a new identity, a torn last record is dropped, one broker per spool;
// each batch keeps its queue's configuration; the spool is bounded in messages and bytes.
#include "resilience/publishspool.h"
#include "journal/journalwriter.h"

#include "../support/eventloop.h"

#include <QDataStream>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

Result<void> tryAppend(PublishSpool &spool, const QString &queue, QList<PublishSpool::Message> messages,
                       const QueueConfig &config = {})
{
    std::optional<Result<void>> outcome;
    spool.append(queue, config, std::move(messages), [&outcome](Result<void> written) { outcome = written; });
    if (!waitUntil([&] { return outcome.has_value(); }))
        return Error{ErrorCode::Timeout, QStringLiteral("the append never completed")};
    return *outcome;
}

void appendAndWait(PublishSpool &spool, const QString &queue, const QByteArray &stored, const QueueConfig &config = {})
{
    const Result<void> written = tryAppend(spool, queue, {{0, stored}}, config);
    QVERIFY2(written.ok(), qPrintable(written.ok() ? QString() : written.error().message));
}

QueueConfig configOf(const QString &type)
{
    QueueConfig config;
    config.type = type;
    return config;
}

} // namespace

class TestPublishSpool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void batchesSurviveARestartInOrder();
    void anEmptiedSpoolStartsOverUnderANewIdentity();
    void aTornLastRecordIsDropped();
    void oneBrokerPerSpool();
    void eachBatchKeepsItsQueuesConfiguration();
    void batchesOfEarlierVersionsReadBackWithoutAConfiguration();
    void countsPerQueue();
    void limitsRefuseBeforeWriting_data();
    void limitsRefuseBeforeWriting();
    void cutAtEveryOffsetKeepsAPrefixInOrder();
};

void TestPublishSpool::batchesSurviveARestartInOrder()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    QByteArray identity;
    {
        auto spool = PublishSpool::open(path).value();
        identity = spool->identity();
        QVERIFY(!identity.isEmpty());
        appendAndWait(*spool, "a", "one");
        appendAndWait(*spool, "b", "two");
        appendAndWait(*spool, "a", "three");
        QCOMPARE(spool->front().messages.first().stored, QByteArray("one"));
        spool->drained();
        QCOMPARE(spool->batchCount(), 2);
    }
    auto spool = PublishSpool::open(path).value();
    QCOMPARE(spool->identity(), identity); // the same identity: Redis's high-water mark still applies
    QCOMPARE(spool->batchCount(), 2);
    QCOMPARE(spool->messageCount(), 2);
    QCOMPARE(spool->front().queue, QString("b"));
    QCOMPARE(spool->front().number, quint64(2));
    spool->drained();
    QCOMPARE(spool->front().messages.first().stored, QByteArray("three"));
    appendAndWait(*spool, "c", "four");
    QCOMPARE(spool->batchCount(), 2);
    spool->drained();
    QCOMPARE(spool->front().number, quint64(4)); // numbers only grow under one identity
}

void TestPublishSpool::anEmptiedSpoolStartsOverUnderANewIdentity()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    auto spool = PublishSpool::open(path).value();
    const QByteArray first = spool->identity();
    for (int i = 0; i < 50; ++i)
        appendAndWait(*spool, "q", QByteArray(1000, 'x'));
    QVERIFY(QFile(path).size() > 50'000);
    while (!spool->isEmpty())
        spool->drained();
    QVERIFY(spool->identity() != first);
    QVERIFY2(QFile(path).size() < 200, qPrintable(QString::number(QFile(path).size())));
    appendAndWait(*spool, "q", "again");
    QCOMPARE(spool->front().number, quint64(1));
}

void TestPublishSpool::aTornLastRecordIsDropped()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    {
        auto spool = PublishSpool::open(path).value();
        appendAndWait(*spool, "q", "kept");
        appendAndWait(*spool, "q", "torn by a crash");
    }
    QFile file(path);
    QVERIFY(file.resize(file.size() - 5));
    auto spool = PublishSpool::open(path).value();
    QCOMPARE(spool->batchCount(), 1);
    QCOMPARE(spool->front().messages.first().stored, QByteArray("kept"));
    appendAndWait(*spool, "q", "after");
    spool.reset();
    QCOMPARE(PublishSpool::open(path).value()->batchCount(), 2);
}

void TestPublishSpool::oneBrokerPerSpool()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    auto first = PublishSpool::open(path);
    QVERIFY(first.ok());
    const auto second = PublishSpool::open(path);
    QVERIFY(!second.ok());
    QVERIFY(second.error().message.contains("in use by another broker"));
    first.value().reset();
    QVERIFY(PublishSpool::open(path).ok()); // free again once the first one is gone
}

void TestPublishSpool::eachBatchKeepsItsQueuesConfiguration()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    QueueConfig config;
    config.type = QStringLiteral("priority");
    config.maxSize = 42;
    config.deadLetterQueue = QStringLiteral("jobs.dlq");
    appendAndWait(*PublishSpool::open(path).value(), "jobs", "one", config);
    config.partitions = 6; // a partitioned queue's count too, for a drain that must make it again
    appendAndWait(*PublishSpool::open(path).value(), "jobs", "two", config);
    auto spool = PublishSpool::open(path).value();
    QVERIFY(spool->front().config.has_value());
    QCOMPARE(spool->front().config->partitions, 1);
    QCOMPARE(spool->front().messages.value(0).stored, QByteArray("one"));
    spool->drained();
    QCOMPARE(spool->front().messages.value(0).stored, QByteArray("two"));
    QCOMPARE(*spool->front().config, config);
}

void TestPublishSpool::batchesOfEarlierVersionsReadBackWithoutAConfiguration()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    {
        // What a broker before configurations were recorded wrote: identity, then kind 2 batches.
        auto writer = JournalWriter::open(path, JournalWriter::Fsync::Always, 0).value();
        QByteArray identity, batch;
        QDataStream(&identity, QIODevice::WriteOnly) << quint8(1) << QByteArray("old-identity") << quint64(1);
        QDataStream out(&batch, QIODevice::WriteOnly);
        out.setVersion(QDataStream::Qt_6_4);
        out << quint8(2) << quint64(1) << QStringLiteral("jobs") << quint32(1) << qint64(0) << QByteArray("old");
        writer->append(identity, [](Result<void>) {});
        writer->append(batch, [](Result<void>) {});
        writer->flushNow();
    }
    auto spool = PublishSpool::open(path).value();
    QCOMPARE(spool->identity(), QByteArray("old-identity"));
    QCOMPARE(spool->batchCount(), 1);
    QCOMPARE(spool->front().queue, QString("jobs"));
    QVERIFY(!spool->front().config.has_value());
    QCOMPARE(spool->front().messages.first().stored, QByteArray("old"));
}

void TestPublishSpool::countsPerQueue()
{
    QTemporaryDir dir;
    auto spool = PublishSpool::open(dir.filePath("spool")).value();
    QVERIFY(tryAppend(*spool, "a", {{0, "1"}, {0, "2"}}).ok());
    QVERIFY(tryAppend(*spool, "b", {{0, "3"}}).ok());
    QCOMPARE(spool->messageCount("a"), 2);
    QCOMPARE(spool->messageCount("b"), 1);
    QCOMPARE(spool->messageCount("c"), 0);
    spool->drained();
    QCOMPARE(spool->messageCount("a"), 0);
    QCOMPARE(spool->messageCount(), 1);
    QCOMPARE(spool->byteCount(), qint64(1 + sizeof(qint64)));
}

void TestPublishSpool::limitsRefuseBeforeWriting_data()
{
    QTest::addColumn<qint64>("maxMessages");
    QTest::addColumn<qint64>("maxBytes");
    QTest::addColumn<int>("accepted"); // batches of 3 messages of 100 bytes before the first refusal
    QTest::addRow("messages-bound") << qint64(10) << qint64(0) << 3;
    QTest::addRow("bytes-bound") << qint64(0) << qint64(700) << 2;
    QTest::addRow("the-smaller-wins") << qint64(7) << qint64(10'000) << 2;
}

void TestPublishSpool::limitsRefuseBeforeWriting()
{
    QFETCH(qint64, maxMessages);
    QFETCH(qint64, maxBytes);
    QFETCH(int, accepted);
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    auto spool = PublishSpool::open(path, {maxMessages, maxBytes}).value();
    const QList<PublishSpool::Message> batch(3, PublishSpool::Message{0, QByteArray(100 - int(sizeof(qint64)), 'x')});
    for (int i = 0; i < accepted; ++i)
        QVERIFY(tryAppend(*spool, "q", batch).ok());
    const qint64 sizeBefore = QFile(path).size();
    const Result<void> refused = tryAppend(*spool, "q", batch);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, ErrorCode::Unavailable);
    QVERIFY(refused.error().message.contains("spool is full"));
    QVERIFY(!refused.error().message.contains(path)); // no paths on the wire
    QCOMPARE(QFile(path).size(), sizeBefore);            // nothing written for it
    QCOMPARE(spool->messageCount(), accepted * 3);
    spool->drained(); // room again once a batch reached the backend
    QVERIFY(tryAppend(*spool, "q", batch).ok());
    // Read back after a restart, a spool over its (now smaller) bounds keeps every batch.
    spool.reset();
    auto reopened = PublishSpool::open(path, {1, 1}).value();
    QCOMPARE(reopened->messageCount(), accepted * 3);
    QVERIFY(!tryAppend(*reopened, "q", {{0, "more"}}).ok());
}

void TestPublishSpool::cutAtEveryOffsetKeepsAPrefixInOrder()
{
    // What a crash can leave at any moment: the file cut at every offset, the header included. The
    // spool opens, and what it reads back is the first batches in order (a drained one never
    // comes back).
    // Every cut opens a spool (a few fdatasyncs): in memory where there is a tmpfs, to stay quick.
    QTemporaryDir dir(QFileInfo(QStringLiteral("/dev/shm")).isWritable() ? QStringLiteral("/dev/shm/tst_publishspool-XXXXXX")
                                                                           : QString());
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("spool");
    {
        auto spool = PublishSpool::open(path).value();
        for (const char *stored : {"one", "two", "three", "four"})
            appendAndWait(*spool, "q", stored, configOf("list"));
        spool->drained(); // "one" reached the backend
    }
    QFile original(path);
    QVERIFY(original.open(QIODevice::ReadOnly));
    const QByteArray bytes = original.readAll();
    const QList<QByteArray> order{"one", "two", "three", "four"};
    int opened = 0;
    for (qsizetype cut = 0; cut <= bytes.size(); ++cut) {
        const QString copy = dir.filePath(QStringLiteral("cut-%1").arg(cut));
        QFile file(copy);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes.left(cut));
        file.close();
        auto spool = PublishSpool::open(copy);
        QVERIFY2(spool.ok(), qPrintable(QStringLiteral("cut at %1: %2").arg(cut).arg(spool.ok() ? QString() : spool.error().message)));
        ++opened;
        QList<QByteArray> got;
        while (!spool.value()->isEmpty()) {
            got.append(spool.value()->front().messages.first().stored);
            spool.value()->drained();
        }
        // A prefix of the batches, or (the drained record lost) all but "one" back as well.
        const qsizetype start = got.value(0) == "one" ? 0 : 1;
        QVERIFY2(got == order.mid(start, got.size()), qPrintable(QStringLiteral("cut at %1").arg(cut)));
        if (cut == bytes.size())
            QCOMPARE(got, order.mid(1));
        spool.value().reset();
        QFile::remove(copy);
        QFile::remove(copy + ".lock");
    }
    QCOMPARE(opened, bytes.size() + 1);
}

QTEST_GUILESS_MAIN(TestPublishSpool)
#include "tst_publishspool.moc"
