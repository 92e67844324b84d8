// SPDX-License-Identifier: GPL-3.0-or-later
// The journal's damage matrix: a small journal cut at every byte offset; one bit flipped in each
// field (length, CRC, payload) of the first, a middle and the last record and in the header; runs
// of zeros. For each, what opening does (start with everything before the damage and a copy of
// what was dropped, or refuse and name the offset and the repair), and that the repair always
// produces a journal that opens.
#include "engine/queuetyperegistry.h"
#include "storage/journaledstore.h"
#include "journal/journalfile.h"

#include "../support/storedump.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using Testing::get;

namespace {

constexpr int Published = 6;

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString &path, const QByteArray &data)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(data), data.size());
}

QStringList sideFiles(const QString &path)
{
    const QFileInfo info(path);
    return info.dir().entryList({info.fileName() + ".torn*"}, QDir::Files);
}

} // namespace

class TestJournalDamage : public QObject
{
    Q_OBJECT

private:
    QueueTypeRegistry m_types;
    ManualClock m_clock;
    QTemporaryDir m_dir;
    QByteArray m_pristine;       // Seed, CreateQueue, then one Publish record per message
    QList<qint64> m_starts;      // where each record starts
    int m_case = 0;

    // A copy of the pristine journal changed by `damage`, in a folder of its own.
    QString damaged(const std::function<void(QByteArray &)> &damage)
    {
        const QString folder = m_dir.filePath(QString::number(++m_case));
        QDir().mkpath(folder);
        QByteArray data = m_pristine;
        damage(data);
        const QString path = folder + "/journal";
        writeFile(path, data);
        return path;
    }

    // Opens the journal; -1 when opening refused, else the messages queued in "d" (0 without it).
    qint64 depthAfterOpen(const QString &path, QString *error = nullptr, JournaledStore::ReplayReport *report = nullptr)
    {
        Result<std::unique_ptr<JournaledStore>> store = JournaledStore::open(m_types, m_clock, {path, JournalWriter::Fsync::Never}, report);
        if (!store) {
            if (error)
                *error = store.error().message;
            return -1;
        }
        const QList<QueueInfo> queues = get<QList<QueueInfo>>([&](auto d) { (*store)->listQueues(d); });
        return queues.isEmpty() ? 0 : queues.first().depth;
    }

private Q_SLOTS:
    void initTestCase();
    void cutAtEveryOffset();
    void aFlippedBit_data();
    void aFlippedBit();
    void zeros_data();
    void zeros();
    void repairDropsWhatDependedOnALostRecord();
};

void TestJournalDamage::initTestCase()
{
    const QString path = m_dir.filePath("pristine");
    {
        auto store = JournaledStore::open(m_types, m_clock, {path, JournalWriter::Fsync::Never});
        QVERIFY(store.ok());
        get<QueueInfo>([&](auto d) { (*store)->createQueue("d", QueueConfig{}, d); });
        for (int n = 0; n < Published; ++n) {
            NewMessage message;
            message.data = "\"message " + QByteArray::number(n) + "\"";
            get<PublishResult>([&](auto d) { (*store)->publish("d", {message}, "alice", d); });
        }
    }
    m_pristine = readFile(path);
    const auto read = JournalFile::read(path);
    QVERIFY(read.ok());
    QCOMPARE(read->records.size(), Published + 2);
    qint64 at = JournalFile::HeaderSize;
    for (const QByteArray &record : read->records) {
        m_starts.append(at);
        at += JournalFile::RecordOverhead + record.size();
    }
    QCOMPARE(at, m_pristine.size());
}

void TestJournalDamage::cutAtEveryOffset()
{
    // A crash can stop a write anywhere: every prefix opens, with every record that is whole.
    for (qint64 cut = 0; cut < m_pristine.size(); ++cut) {
        const QString path = damaged([cut](QByteArray &data) { data.truncate(cut); });
        JournaledStore::ReplayReport report;
        QString error;
        const qint64 depth = depthAfterOpen(path, &error, &report);
        QVERIFY2(depth >= 0, qPrintable(QStringLiteral("cut at %1: %2").arg(cut).arg(error)));
        qint64 whole = 0; // records wholly before the cut
        qint64 boundary = JournalFile::HeaderSize;
        for (qsizetype i = 0; i < m_starts.size(); ++i) {
            const qint64 end = i + 1 < m_starts.size() ? m_starts[i + 1] : m_pristine.size();
            if (end <= cut) {
                ++whole;
                boundary = end;
            }
        }
        QCOMPARE(depth, std::max<qint64>(0, whole - 2));
        if (cut > JournalFile::HeaderSize && cut != boundary) {
            QVERIFY2(report.tornTail, qPrintable(QString::number(cut)));
            QCOMPARE(report.droppedBytes, cut - boundary);
            QCOMPARE(readFile(report.keptTailPath), m_pristine.mid(boundary, cut - boundary));
        } else {
            QVERIFY2(!report.tornTail, qPrintable(QString::number(cut)));
            QVERIFY(sideFiles(path).isEmpty());
        }
    }
}

void TestJournalDamage::aFlippedBit_data()
{
    QTest::addColumn<int>("record"); // index into the records; -1: the header
    QTest::addColumn<int>("field");  // byte offset within the record: 0 length, 4 CRC, 8 payload
    QTest::addColumn<bool>("opens"); // else refused, naming the offset
    QTest::addColumn<qint64>("depthAfterRepair");
    const int last = Published + 1;
    const int middle = 4;
    for (const auto &[name, field] : {std::pair{"length", 0}, std::pair{"crc", 4}, std::pair{"payload", 9}}) {
        QTest::addRow("first-record-%s", name) << 0 << field << false << qint64(Published);
        QTest::addRow("middle-record-%s", name) << middle << field << false << qint64(Published - 1);
        QTest::addRow("last-record-%s", name) << last << field << true << qint64(Published - 1);
    }
    QTest::addRow("header") << -1 << 2 << false << qint64(-1);
}

void TestJournalDamage::aFlippedBit()
{
    QFETCH(int, record);
    QFETCH(int, field);
    QFETCH(bool, opens);
    QFETCH(qint64, depthAfterRepair);
    const qint64 offset = record < 0 ? field : m_starts[record] + field;
    const QString path = damaged([offset](QByteArray &data) { data[offset] = char(data[offset] ^ 0x01); });
    const QByteArray asDamaged = readFile(path);
    QString error;
    JournaledStore::ReplayReport report;
    const qint64 depth = depthAfterOpen(path, &error, &report);
    if (opens) {
        // Damage in the last record is what a cut-short write looks like: start without it,
        // with a copy of its bytes.
        QCOMPARE(depth, qint64(Published - 1));
        QVERIFY(report.tornTail);
        QCOMPARE(readFile(report.keptTailPath), asDamaged.mid(m_starts[record]));
        return;
    }
    QCOMPARE(depth, qint64(-1));
    if (record < 0) {
        QVERIFY2(error.contains("not a BrokerDesk journal"), qPrintable(error));
        return;
    }
    QVERIFY2(error.contains(QStringLiteral("damaged record at offset %1").arg(m_starts[record])), qPrintable(error));
    QVERIFY2(error.contains("--repair-journal"), qPrintable(error));
    QCOMPARE(readFile(path).size(), m_pristine.size()); // nothing was cut

    const Result<JournaledStore::RepairReport> repaired = JournaledStore::repair(m_types, m_clock, path);
    QVERIFY2(repaired.ok(), repaired.ok() ? "" : qPrintable(repaired.error().message));
    QCOMPARE(repaired->kept, qint64(Published + 1));
    QCOMPARE(readFile(path + ".damaged").size(), m_pristine.size());
    QCOMPARE(depthAfterOpen(path), depthAfterRepair);
}

void TestJournalDamage::zeros_data()
{
    QTest::addColumn<int>("at");    // -1: appended at the end; else written over this record's start
    QTest::addColumn<int>("count");
    QTest::addRow("1-zero-byte-at-the-end") << -1 << 1;
    QTest::addRow("8-zero-bytes-at-the-end") << -1 << 8;
    QTest::addRow("4096-zero-bytes-at-the-end") << -1 << 4096;
    QTest::addRow("8-zero-bytes-over-a-middle-record") << 4 << 8;
    QTest::addRow("empty-file") << -2 << 0;
}

void TestJournalDamage::zeros()
{
    QFETCH(int, at);
    QFETCH(int, count);
    const qint64 start = at >= 0 ? m_starts[at] : 0;
    const QString path = damaged([&](QByteArray &data) {
        if (at == -1)
            data.append(QByteArray(count, '\0'));
        else if (at == -2)
            data.clear();
        else
            data.replace(start, count, QByteArray(count, '\0'));
    });
    QString error;
    JournaledStore::ReplayReport report;
    const qint64 depth = depthAfterOpen(path, &error, &report);
    if (at == -2) {
        QCOMPARE(depth, 0); // an empty file is a new journal
        return;
    }
    if (at == -1) {
        QCOMPARE(depth, qint64(Published));
        QVERIFY(report.tornTail);
        QVERIFY(report.droppedAllZero);
        QCOMPARE(report.droppedBytes, qint64(count));
        QCOMPARE(readFile(report.keptTailPath), QByteArray(count, '\0'));
        return;
    }
    QCOMPARE(depth, qint64(-1));
    QVERIFY2(error.contains(QStringLiteral("damaged record at offset %1").arg(start)), qPrintable(error));
    // Repair never takes zeros for a record: it skips to the next intact one.
    const Result<JournaledStore::RepairReport> repaired = JournaledStore::repair(m_types, m_clock, path);
    QVERIFY(repaired.ok());
    QCOMPARE(repaired->undecodable, 0);
    QCOMPARE(repaired->kept, qint64(Published + 1));
    QCOMPARE(depthAfterOpen(path), qint64(Published - 1));
}

void TestJournalDamage::repairDropsWhatDependedOnALostRecord()
{
    // publish A, lease A, ack A, publish B, lease B: with A's publish lost, the lease of A now
    // leases nothing and the ack of A fails. The repaired journal opens, with B leased.
    const QString path = m_dir.filePath("dependent.journal");
    QList<qint64> starts;
    {
        auto store = JournaledStore::open(m_types, m_clock, {path, JournalWriter::Fsync::Never});
        QVERIFY(store.ok());
        get<QueueInfo>([&](auto d) { (*store)->createQueue("d", QueueConfig{}, d); });
        ConsumeRequest lease;
        lease.acknowledge = false;
        NewMessage a;
        a.data = "\"A\"";
        get<PublishResult>([&](auto d) { (*store)->publish("d", {a}, "alice", d); });
        const QList<Message> leasedA = get<QList<Message>>([&](auto d) { (*store)->consume("d", lease, d); });
        Testing::expectOk([&](auto d) { (*store)->ack("d", {leasedA.first().id, leasedA.first().receipt, {}, {}}, d); });
        NewMessage b;
        b.data = "\"B\"";
        get<PublishResult>([&](auto d) { (*store)->publish("d", {b}, "alice", d); });
        QCOMPARE(get<QList<Message>>([&](auto d) { (*store)->consume("d", lease, d); }).size(), 1);
    }
    const auto read = JournalFile::read(path);
    QVERIFY(read.ok());
    QCOMPARE(read->records.size(), 7); // seed, create, publish A, lease A, ack A, publish B, lease B
    const qint64 publishA = JournalFile::HeaderSize + 2 * JournalFile::RecordOverhead + read->records[0].size()
        + read->records[1].size();
    QByteArray data = readFile(path);
    data[publishA + JournalFile::RecordOverhead + 3] = char(data[publishA + JournalFile::RecordOverhead + 3] ^ 0x10);
    writeFile(path, data);
    QCOMPARE(depthAfterOpen(path), qint64(-1));

    const Result<JournaledStore::RepairReport> repaired = JournaledStore::repair(m_types, m_clock, path);
    QVERIFY(repaired.ok());
    QCOMPARE(repaired->dependent, 1); // the ack of A
    QCOMPARE(repaired->adjusted, 1);  // the lease of A, which now leases nothing
    QCOMPARE(repaired->kept, 5);
    QCOMPARE(repaired->originalCopy, path + ".damaged");
    QCOMPARE(readFile(repaired->originalCopy), data);
    // A second repair keeps the journal as it was then beside the first copy.
    const Result<JournaledStore::RepairReport> again = JournaledStore::repair(m_types, m_clock, path);
    QVERIFY(again.ok());
    QVERIFY(again->originalCopy != repaired->originalCopy);
    QCOMPARE(readFile(repaired->originalCopy), data);
    QCOMPARE(again->kept, 5);
    auto store = JournaledStore::open(m_types, m_clock, {path, JournalWriter::Fsync::Never});
    QVERIFY2(store.ok(), store.ok() ? "" : qPrintable(store.error().message));
    const QList<QueueInfo> queues = get<QList<QueueInfo>>([&](auto d) { (*store)->listQueues(d); });
    QCOMPARE(queues.first().inFlight, 1); // B, leased
    QCOMPARE(queues.first().depth, 0);
    QCOMPARE(queues.first().counters.published, 1);
}

QTEST_GUILESS_MAIN(TestJournalDamage)
#include "tst_journaldamage.moc"
