// SPDX-License-Identifier: GPL-3.0-or-later
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

QTEST_MAIN(TestMessageTransfer)
#include "tst_messagetransfer.moc"
