// SPDX-License-Identifier: GPL-3.0-or-later
#include "output.h"

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

void Output::json(const QJsonValue &value) const
{
    QByteArray text;
    if (value.isObject())
        text = QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
    else if (value.isArray())
        text = QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    else
        text = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact).chopped(1).mid(1);
    writeLine(stdout, QString::fromUtf8(text));
}

void Output::table(const QStringList &headers, const QList<QStringList> &rows, const QJsonValue &raw) const
{
    if (m_format == Format::Json)
        return json(raw);
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

void Output::keyValues(const QList<QPair<QString, QString>> &pairs, const QJsonValue &raw) const
{
    if (m_format == Format::Json)
        return json(raw);
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
