// SPDX-License-Identifier: GPL-3.0-or-later
#include "journalfile.h"

#include <QFile>
#include <QSaveFile>
#include <QtEndian>

#include <array>

namespace Broker::JournalFile {

namespace {

constexpr char Magic[6] = {'B', 'D', 'J', 'R', 'N', 'L'};
constexpr quint16 FormatVersion = 1;

const std::array<quint32, 256> &crcTable()
{
    static const std::array<quint32, 256> table = [] {
        std::array<quint32, 256> t{};
        for (quint32 i = 0; i < 256; ++i) {
            quint32 c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1; // Castagnoli polynomial, reflected
            t[i] = c;
        }
        return t;
    }();
    return table;
}

Result<QByteArray> readWhole(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot read: %2").arg(path, file.errorString())};
    return file.readAll();
}

// Whether a well-formed record starts at `pos`; sets its total size.
bool recordAt(const QByteArray &data, qsizetype pos, qsizetype &size)
{
    if (data.size() - pos < RecordOverhead)
        return false;
    const quint32 length = qFromLittleEndian<quint32>(data.constData() + pos);
    const quint32 crc = qFromLittleEndian<quint32>(data.constData() + pos + 4);
    if (length > MaxRecordBytes || data.size() - pos - RecordOverhead < qsizetype(length))
        return false;
    if (crc32c(QByteArrayView(data.constData() + pos + RecordOverhead, length)) != crc)
        return false;
    size = RecordOverhead + qsizetype(length);
    return true;
}

Result<void> checkHeader(const QString &path, const QByteArray &data)
{
    if (data.size() < HeaderSize || !data.startsWith(QByteArrayView(Magic, sizeof Magic)))
        return Error{ErrorCode::Internal, QStringLiteral("%1: not a BrokerDesk journal").arg(path)};
    const quint16 version = qFromLittleEndian<quint16>(data.constData() + sizeof Magic);
    if (version != FormatVersion)
        return Error{ErrorCode::Internal, QStringLiteral("%1: journal format %2 is not supported (this build reads %3)")
                                               .arg(path).arg(version).arg(FormatVersion)};
    return {};
}

} // namespace

QByteArray header()
{
    QByteArray out(Magic, sizeof Magic);
    char version[2];
    qToLittleEndian<quint16>(FormatVersion, version);
    out.append(version, 2);
    return out;
}

quint32 crc32c(QByteArrayView data)
{
    const auto &table = crcTable();
    quint32 crc = 0xFFFFFFFFu;
    for (const char c : data)
        crc = table[(crc ^ static_cast<unsigned char>(c)) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

void appendRecord(QByteArray &out, QByteArrayView payload)
{
    char frame[RecordOverhead];
    qToLittleEndian<quint32>(quint32(payload.size()), frame);
    qToLittleEndian<quint32>(crc32c(payload), frame + 4);
    out.append(frame, RecordOverhead);
    out.append(payload.data(), payload.size());
}

Result<ReadResult> read(const QString &path)
{
    const Result<QByteArray> data = readWhole(path);
    if (!data)
        return data.error();
    if (const Result<void> ok = checkHeader(path, *data); !ok)
        return ok.error();
    ReadResult result;
    qsizetype pos = HeaderSize;
    while (pos < data->size()) {
        qsizetype size = 0;
        if (recordAt(*data, pos, size)) {
            result.records.append(data->mid(pos + RecordOverhead, size - RecordOverhead));
            pos += size;
            continue;
        }
        // Damage. At the very end of the file it is a write the crash cut short.
        const quint32 length = data->size() - pos >= 4 ? qFromLittleEndian<quint32>(data->constData() + pos) : 0;
        const bool reachesEnd = data->size() - pos < RecordOverhead
            || (length <= MaxRecordBytes && pos + RecordOverhead + qsizetype(length) >= data->size());
        if (reachesEnd) {
            result.tornTail = true;
            break;
        }
        return Error{ErrorCode::Internal,
                     QStringLiteral("%1: damaged record at offset %2 with %3 bytes after it; run the repair command to keep every intact record")
                         .arg(path)
                         .arg(pos)
                         .arg(data->size() - pos)};
    }
    result.validBytes = pos;
    return result;
}

Result<RepairReport> repair(const QString &path)
{
    const Result<QByteArray> data = readWhole(path);
    if (!data)
        return data.error();
    if (const Result<void> ok = checkHeader(path, *data); !ok)
        return ok.error();
    RepairReport report;
    QByteArray out = header();
    qsizetype pos = HeaderSize;
    while (pos < data->size()) {
        qsizetype size = 0;
        if (recordAt(*data, pos, size)) {
            out.append(data->constData() + pos, size);
            ++report.kept;
            pos += size;
            continue;
        }
        // Search for the next intact record.
        qsizetype next = pos + 1;
        while (next < data->size() && !recordAt(*data, next, size))
            ++next;
        report.damaged.append(QStringLiteral("offset %1: %2 damaged bytes skipped").arg(pos).arg(next - pos));
        report.skippedBytes += next - pos;
        pos = next;
    }
    if (!QFile::copy(path, path + QStringLiteral(".damaged")) && !QFile::exists(path + QStringLiteral(".damaged")))
        return Error{ErrorCode::Internal, QStringLiteral("%1: cannot keep a copy of the original").arg(path)};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(out) != out.size() || !file.commit())
        return Error{ErrorCode::Internal, QStringLiteral("%1: cannot write the repaired journal: %2").arg(path, file.errorString())};
    return report;
}

} // namespace Broker::JournalFile
