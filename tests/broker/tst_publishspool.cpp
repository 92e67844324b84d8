// SPDX-License-Identifier: GPL-3.0-or-later
// PublishSpool: batches survive a restart in order, drained ones do not come back, an emptied
// spool starts over under a new identity, a torn last record is dropped, one broker per spool.
#include "resilience/publishspool.h"

#include "../support/eventloop.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

void appendAndWait(PublishSpool &spool, const QString &queue, const QByteArray &stored)
{
    bool done = false;
    spool.append(queue, {{0, stored}}, [&done](Result<void> written) {
        QVERIFY(written.ok());
        done = true;
    });
    QVERIFY(waitUntil([&] { return done; }));
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

QTEST_GUILESS_MAIN(TestPublishSpool)
#include "tst_publishspool.moc"
