// SPDX-License-Identifier: GPL-3.0-or-later
// The journal's file format and writer: records come back exactly, a torn tail is dropped, damage
// in the middle stops with its offset, salvage keeps every intact record, group commit shares one
// write (and one sync) per turn of the event loop.
#include "journal/journalfile.h"
#include "journal/journalwriter.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;

class TestJournal : public QObject
{
    Q_OBJECT

private:
    static QList<QByteArray> payloads(int count)
    {
        QList<QByteArray> out;
        for (int i = 0; i < count; ++i)
            out.append("record-" + QByteArray::number(i) + QByteArray(i % 7, 'x'));
        return out;
    }
    // Writes `records` through a writer and waits until all are durable.
    static void writeAll(const QString &path, const QList<QByteArray> &records, JournalWriter::Fsync policy,
                         JournalWriter::Stats *stats = nullptr)
    {
        auto writer = JournalWriter::open(path, policy);
        QVERIFY(writer.ok());
        int done = 0;
        for (const QByteArray &record : records)
            (*writer)->append(record, [&](Result<void> r) {
                QVERIFY(r.ok());
                ++done;
            });
        QCOMPARE(done, 0); // nothing is durable before the turn ends
        QTRY_COMPARE(done, records.size());
        if (stats)
            *stats = (*writer)->stats();
    }
    static void corrupt(const QString &path, qint64 offset)
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        file.seek(offset);
        char c;
        file.getChar(&c);
        file.seek(offset);
        file.putChar(char(c ^ 0x5A));
    }

private Q_SLOTS:
    void recordsComeBackExactly();
    void groupCommitSharesOneWriteAndSync();
    void tornTailIsDroppedAndWritingGoesOn();
    void damageInTheMiddleStopsWithItsOffset();
    void salvageKeepsEveryIntactRecord();
    void notAJournal();
    void crcKnownAnswer();
};

void TestJournal::recordsComeBackExactly()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("journal");
    writeAll(path, payloads(100), JournalWriter::Fsync::Never);
    const auto read = JournalFile::read(path);
    QVERIFY(read.ok());
    QCOMPARE(read->records, payloads(100));
    QVERIFY(!read->tornTail);
    QCOMPARE(read->validBytes, QFileInfo(path).size());
}

void TestJournal::groupCommitSharesOneWriteAndSync()
{
    QTemporaryDir dir;
    JournalWriter::Stats stats;
    writeAll(dir.filePath("journal"), payloads(500), JournalWriter::Fsync::Always, &stats);
    QCOMPARE(stats.records, 500);
    QCOMPARE(stats.writes, 1);
    QCOMPARE(stats.syncs, 1);

    // EverySecond: completions after the write; a timer syncs within about a second.
    auto writer = JournalWriter::open(dir.filePath("other"), JournalWriter::Fsync::EverySecond);
    QVERIFY(writer.ok());
    bool done = false;
    (*writer)->append("x", [&](Result<void> r) { done = r.ok(); });
    QTRY_VERIFY(done);
    QCOMPARE((*writer)->stats().syncs, 0);
    QTRY_COMPARE_WITH_TIMEOUT((*writer)->stats().syncs, 1, 3000);
}

void TestJournal::tornTailIsDroppedAndWritingGoesOn()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("journal");
    writeAll(path, payloads(10), JournalWriter::Fsync::Never);
    const qint64 full = QFileInfo(path).size();
    for (const qint64 cut : {qint64(1), qint64(5), qint64(9)}) { // inside the payload, the CRC, the length
        QVERIFY(QFile::resize(path, full - cut));
        const auto read = JournalFile::read(path);
        QVERIFY(read.ok());
        QVERIFY(read->tornTail);
        QCOMPARE(read->records, payloads(9));
        QVERIFY(QFile::resize(path, full));
        corrupt(path, full - 2); // damage in the last record only: also a torn tail
        QVERIFY(JournalFile::read(path)->tornTail);
        corrupt(path, full - 2);
    }
    // A writer opened at validBytes continues after the last intact record.
    QVERIFY(QFile::resize(path, full - 3));
    const auto read = JournalFile::read(path);
    auto writer = JournalWriter::open(path, JournalWriter::Fsync::Always, read->validBytes);
    QVERIFY(writer.ok());
    bool done = false;
    (*writer)->append("after", [&](Result<void>) { done = true; });
    QTRY_VERIFY(done);
    writer.value().reset();
    QList<QByteArray> expected = payloads(9);
    expected.append("after");
    QCOMPARE(JournalFile::read(path)->records, expected);
}

void TestJournal::damageInTheMiddleStopsWithItsOffset()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("journal");
    writeAll(path, payloads(10), JournalWriter::Fsync::Never);
    corrupt(path, JournalFile::HeaderSize + JournalFile::RecordOverhead + 2); // first record's payload
    const auto read = JournalFile::read(path);
    QVERIFY(!read.ok());
    QVERIFY2(read.error().message.contains(QStringLiteral("damaged record at offset %1").arg(JournalFile::HeaderSize)),
             qPrintable(read.error().message));
    QVERIFY(read.error().message.contains("repair"));
}

void TestJournal::salvageKeepsEveryIntactRecord()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("journal");
    const QList<QByteArray> records = payloads(20);
    writeAll(path, records, JournalWriter::Fsync::Never);
    // Damage record 3 (its payload) and record 11 (its length field).
    qint64 offset = JournalFile::HeaderSize;
    QList<qint64> starts;
    for (const QByteArray &record : records) {
        starts.append(offset);
        offset += JournalFile::RecordOverhead + record.size();
    }
    corrupt(path, starts[3] + JournalFile::RecordOverhead);
    corrupt(path, starts[11] + 1);
    const auto salvaged = JournalFile::salvage(path);
    QVERIFY(salvaged.ok());
    QCOMPARE(salvaged->records.size(), 18);
    QCOMPARE(salvaged->damaged.size(), 2);
    QVERIFY(JournalFile::rewrite(path, salvaged->records).ok());
    QList<QByteArray> expected = records;
    expected.removeAt(11);
    expected.removeAt(3);
    QCOMPARE(JournalFile::read(path)->records, expected);
    QVERIFY(QFile::exists(path + ".damaged"));
}

void TestJournal::notAJournal()
{
    QTemporaryDir dir;
    QFile file(dir.filePath("other"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("hello world");
    file.close();
    QCOMPARE(JournalFile::read(file.fileName()).error().message, file.fileName() + ": not a BrokerDesk journal");
    QVERIFY(!JournalFile::read(dir.filePath("missing")).ok());
}

void TestJournal::crcKnownAnswer()
{
    // The standard CRC-32C check value.
    QCOMPARE(JournalFile::crc32c("123456789"), 0xE3069283u);
}

QTEST_GUILESS_MAIN(TestJournal)
#include "tst_journal.moc"
