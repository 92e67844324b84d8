// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/messagelines.h"
#include "ui/messagetransfer.h"

#include <QFile>
#include <QPromise>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWidget>

using namespace Broker;
using namespace Broker::Ui;

namespace {

QFuture<Result<BrowsePage>> ready(BrowsePage page)
{
    QPromise<Result<BrowsePage>> promise;
    promise.start();
    promise.addResult(Result<BrowsePage>(std::move(page)));
    promise.finish();
    return promise.future();
}

BrowsePage pageOf(qint64 first, qint64 count, qint64 nextOffset, bool truncated = false)
{
    BrowsePage page;
    for (qint64 i = first; i < first + count; ++i) {
        Message message;
        message.id = QStringLiteral("msg-%1").arg(i);
        message.data = QByteArrayLiteral("{\"n\":") + QByteArray::number(i) + '}';
        page.messages.append(message);
    }
    page.total = 4;
    page.nextOffset = nextOffset;
    page.truncated = truncated;
    page.scanned = truncated ? 10'000 : first + count;
    return page;
}

} // namespace

class TestMessageTransfer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exportWritesEveryPage();
    void exportThatHitsTheScanBoundFailsAndLeavesNoFile();
    void aDelayedMessageKeepsItsDueTime();
};

void TestMessageTransfer::exportWritesEveryPage()
{
    QTemporaryDir dir;
    QWidget parent;
    const QString file = dir.filePath("out.jsonl");
    auto *transfer = MessageTransfer::exportTo(
        file, [](qint64 offset, qint64) { return ready(offset == 0 ? pageOf(0, 2, 2) : pageOf(2, 2, -1)); }, 4, &parent);
    QSignalSpy finished(transfer, &MessageTransfer::finished);
    QTRY_COMPARE(finished.size(), 1);
    QCOMPARE(finished.first().at(0).toLongLong(), 4);
    QCOMPARE(finished.first().at(2).toString(), QString());
    QFile out(file);
    QVERIFY(out.open(QIODevice::ReadOnly));
    QCOMPARE(out.readAll().count('\n'), 4);
}

// A search that stopped at the scan bound has left messages unexamined: the export says so and
// writes nothing, rather than a file that looks complete.
void TestMessageTransfer::exportThatHitsTheScanBoundFailsAndLeavesNoFile()
{
    QTemporaryDir dir;
    QWidget parent;
    const QString file = dir.filePath("out.jsonl");
    auto *transfer = MessageTransfer::exportTo(
        file, [](qint64 offset, qint64) { return ready(offset == 0 ? pageOf(0, 2, 2) : pageOf(2, 1, -1, true)); }, 4,
        &parent);
    QSignalSpy finished(transfer, &MessageTransfer::finished);
    QTRY_COMPARE(finished.size(), 1);
    QVERIFY2(finished.first().at(2).toString().contains("stopped after examining 10000 messages"),
             qPrintable(finished.first().at(2).toString()));
    QVERIFY(!QFile::exists(file));
}

// Exported with when it is due; imported with the rest of its delay (none once it is past).
void TestMessageTransfer::aDelayedMessageKeepsItsDueTime()
{
    const qint64 now = 1'764'590'000'123;
    Message delayed;
    delayed.id = QStringLiteral("msg-1");
    delayed.data = "{\"n\":1}";
    delayed.dueMs = now + 600'000;
    const QByteArray line = MessageLines::toLine(delayed);
    QVERIFY2(line.contains(R"("state":"delayed","visible_at":1764590600.123)"), line.constData());
    const Result<NewMessage> back = MessageLines::fromLine(line, now);
    QVERIFY(back);
    QVERIFY2(back->delayMs >= 600'000 && back->delayMs <= 600'001, qPrintable(QString::number(back->delayMs)));
    QCOMPARE(back->data, delayed.data);
    QCOMPARE(MessageLines::fromLine(line, now + 700'000)->delayMs, 0);

    Message leased = delayed; // a lease's end is not a delay
    leased.leaseDeadlineMs = now + 30'000;
    QVERIFY(!MessageLines::toLine(leased).contains("\"state\""));
    QCOMPARE(MessageLines::fromLine(MessageLines::toLine(leased), now)->delayMs, 0);

    const Result<NewMessage> bad = MessageLines::fromLine(R"({"data":1,"state":"delayed"})", now);
    QVERIFY(!bad);
    QCOMPARE(bad.error().message, QStringLiteral("a delayed message needs \"visible_at\" (unix seconds)"));
}

QTEST_MAIN(TestMessageTransfer)
#include "tst_messagetransfer.moc"
