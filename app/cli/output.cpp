// SPDX-License-Identifier: GPL-3.0-or-later
#include "output.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace BrokerCtl {

namespace {
void writeLine(FILE *stream, const QString &line)
{
    const QByteArray bytes = line.toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stream);
    std::fputc('\n', stream);
}
} // namespace

bool Output::parseFormat(const QString &name, Format &format)
{
    if (name == u"table")
        format = Format::Table;
    else if (name == u"text")
        format = Format::Text;
    else if (name == u"json")
        format = Format::Json;
    else
        return false;
    return true;
}

QString Output::cell(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined: return QStringLiteral("-");
    case QJsonValue::Bool: return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        const double number = value.toDouble();
        return number == double(qint64(number)) ? QString::number(qint64(number)) : QString::number(number, 'f', 2);
    }
    case QJsonValue::String: return value.toString();
    case QJsonValue::Array: return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object: return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    }
    return {};
}

QString Output::time(const QJsonValue &value)
{
    if (!value.isDouble())
        return cell(value);
    const auto ms = qint64(value.toDouble() * 1000.0);
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    return at.toString(ms % 1000 == 0 ? Qt::ISODate : Qt::ISODateWithMs);
}

bool Output::isTimeField(const QString &key)
{
    static const QStringList names{QStringLiteral("created"),    QStringLiteral("timestamp"),
                                   QStringLiteral("last_used"),  QStringLiteral("time"),
                                   QStringLiteral("visible_at"), QStringLiteral("dead_lettered_at"),
                                   QStringLiteral("first_seen"), QStringLiteral("last_seen")};
    return names.contains(key.section(QLatin1Char('.'), -1));
}

void Output::json(const QByteArray &text) const
{
    writeLine(stdout, QString::fromUtf8(text.trimmed()));
}

void Output::table(const QStringList &headers, const QList<QStringList> &rows, const QByteArray &raw) const
{
    if (m_format == Format::Json)
        return json(raw);
    if (m_format == Format::Text) {
        for (const QStringList &row : rows)
            writeLine(stdout, row.join(QLatin1Char('\t')));
        return;
    }
    QList<qsizetype> widths;
    for (const QString &header : headers)
        widths.append(header.size());
    for (const QStringList &row : rows) {
        for (qsizetype i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = qMax(widths[i], row[i].size());
    }
    const auto line = [&](const QStringList &cells) {
        QString out;
        for (qsizetype i = 0; i < cells.size(); ++i)
            out += (i + 1 < cells.size() ? cells[i].leftJustified(widths[i] + 2) : cells[i]);
        writeLine(stdout, out);
    };
    line(headers);
    for (const QStringList &row : rows)
        line(row);
}

void Output::keyValues(const QList<QPair<QString, QString>> &pairs, const QByteArray &raw) const
{
    if (m_format == Format::Json)
        return json(raw);
    if (m_format == Format::Text) {
        for (const auto &[key, value] : pairs)
            writeLine(stdout, key + QLatin1Char('\t') + value);
        return;
    }
    qsizetype width = 0;
    for (const auto &[key, value] : pairs)
        width = qMax(width, key.size());
    for (const auto &[key, value] : pairs)
        writeLine(stdout, (key + QLatin1Char(':')).leftJustified(width + 2) + value);
}

void Output::text(const QString &line) const
{
    writeLine(stdout, line);
}

void Output::note(const QString &line)
{
    writeLine(stderr, line);
}

void Output::error(const QString &line)
{
    writeLine(stderr, QStringLiteral("brokerctl: ") + line);
}

} // namespace BrokerCtl
