// SPDX-License-Identifier: GPL-3.0-or-later
#include "journalfile.h"

#include <QDateTime>
#include <QFile>
#include <QSaveFile>
#include <QtEndian>

#include <algorithm>
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
    // Every payload has at least one byte: eight zero bytes (length 0, and 0 is the CRC-32C of
    // nothing) would otherwise pass for a record, and zeros are what crashes leave behind.
    if (length == 0 || length > MaxRecordBytes || data.size() - pos - RecordOverhead < qsizetype(length))
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

namespace {

// Where the next intact record at or after `from` starts; data.size() when none does.
qsizetype nextIntactRecord(const QByteArray &data, qsizetype from)
{
    qsizetype size = 0;
    for (qsizetype pos = from; pos < data.size(); ++pos) {
        if (recordAt(data, pos, size))
            return pos;
    }
    return data.size();
}

// A file a crash left before its header was complete holds nothing yet.
bool isHeaderPrefix(const QByteArray &data)
{
    return data.size() < HeaderSize && header().startsWith(data);
}

} // namespace

Result<ReadResult> read(const QString &path)
{
    const Result<QByteArray> data = readWhole(path);
    if (!data)
        return data.error();
    ReadResult result;
    if (isHeaderPrefix(*data))
        return result;
    if (const Result<void> ok = checkHeader(path, *data); !ok)
        return ok.error();
    qsizetype pos = HeaderSize;
    while (pos < data->size()) {
        qsizetype size = 0;
        if (recordAt(*data, pos, size)) {
            result.records.append(data->mid(pos + RecordOverhead, size - RecordOverhead));
            pos += size;
            continue;
        }
        const qsizetype next = nextIntactRecord(*data, pos + 1);
        if (next < data->size()) {
            return Error{ErrorCode::Internal,
                         QStringLiteral("%1: damaged record at offset %2, intact records follow at offset %3; the broker "
                                        "does not start on a damaged journal (repair: brokerd --repair-journal %1, which "
                                        "keeps every intact record and a copy of the original)")
                             .arg(path)
                             .arg(pos)
                             .arg(next)};
        }
        result.droppedBytes = data->size() - pos;
        result.droppedAllZero = std::all_of(data->cbegin() + pos, data->cend(), [](char c) { return c == 0; });
        result.tornTail = true;
        break;
    }
    result.validBytes = pos;
    return result;
}

Result<Salvaged> salvage(const QString &path)
{
    const Result<QByteArray> data = readWhole(path);
    if (!data)
        return data.error();
    Salvaged salvaged;
    if (isHeaderPrefix(*data))
        return salvaged;
    if (const Result<void> ok = checkHeader(path, *data); !ok)
        return ok.error();
    qsizetype pos = HeaderSize;
    while (pos < data->size()) {
        qsizetype size = 0;
        if (recordAt(*data, pos, size)) {
            salvaged.records.append(data->mid(pos + RecordOverhead, size - RecordOverhead));
            pos += size;
            continue;
        }
        const qsizetype next = nextIntactRecord(*data, pos + 1);
        salvaged.damaged.append(QStringLiteral("offset %1: %2 damaged bytes skipped").arg(pos).arg(next - pos));
        salvaged.skippedBytes += next - pos;
        pos = next;
    }
    return salvaged;
}

namespace {

// `path` + suffix, made unique with the time (and a counter) when that name is taken.
QString freeSideName(const QString &path, const QString &suffix)
{
    QString target = path + suffix;
    if (!QFile::exists(target))
        return target;
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddTHHmmsszzz"));
    target = QStringLiteral("%1%2-%3").arg(path, suffix, stamp);
    for (int n = 1; QFile::exists(target); ++n)
        target = QStringLiteral("%1%2-%3-%4").arg(path, suffix, stamp).arg(n);
    return target;
}

} // namespace

Result<QString> rewrite(const QString &path, const QList<QByteArray> &records)
{
    QByteArray out = header();
    for (const QByteArray &record : records)
        appendRecord(out, record);
    const QString copy = freeSideName(path, QStringLiteral(".damaged"));
    if (QFile::exists(path) && !QFile::copy(path, copy))
        return Error{ErrorCode::Internal, QStringLiteral("%1: cannot keep a copy of the original").arg(path)};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(out) != out.size() || !file.commit())
        return Error{ErrorCode::Internal, QStringLiteral("%1: cannot write the repaired journal: %2").arg(path, file.errorString())};
    return copy;
}

Result<QString> keepTail(const QString &path, qint64 offset)
{
    QFile source(path);
    if (!source.open(QIODevice::ReadOnly))
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot read: %2").arg(path, source.errorString())};
    if (source.size() <= offset)
        return QString();
    source.seek(offset);
    const QByteArray tail = source.readAll();
    const QString target = freeSideName(path, QStringLiteral(".torn"));
    QSaveFile side(target);
    if (!side.open(QIODevice::WriteOnly) || side.write(tail) != tail.size() || !side.commit())
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot keep the bytes after offset %2: %3")
                                                 .arg(path).arg(offset).arg(side.errorString())};
    return target;
}

} // namespace Broker::JournalFile
