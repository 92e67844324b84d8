// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsontext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Broker::Ui {

namespace {

// Wraps the value in an array so that QJsonDocument accepts scalars too.
std::optional<QJsonValue> parseValue(const QByteArray &json, QJsonParseError *error)
{
    const QJsonDocument wrapped = QJsonDocument::fromJson('[' + json + ']', error);
    if (error->error != QJsonParseError::NoError || wrapped.array().size() != 1)
        return std::nullopt;
    return wrapped.array().first();
}

} // namespace

QString prettyJson(const QByteArray &json)
{
    QJsonParseError error;
    const std::optional<QJsonValue> value = parseValue(json, &error);
    if (!value)
        return QString::fromUtf8(json);
    if (value->isObject())
        return QString::fromUtf8(QJsonDocument(value->toObject()).toJson(QJsonDocument::Indented)).trimmed();
    if (value->isArray())
        return QString::fromUtf8(QJsonDocument(value->toArray()).toJson(QJsonDocument::Indented)).trimmed();
    return QString::fromUtf8(json);
}

std::optional<QByteArray> compactJson(const QString &text, QString *error)
{
    const QByteArray utf8 = text.trimmed().toUtf8();
    if (utf8.isEmpty()) {
        *error = QStringLiteral("The message is empty");
        return std::nullopt;
    }
    QJsonParseError parseError;
    const std::optional<QJsonValue> value = parseValue(utf8, &parseError);
    if (!value) {
        // Offsets count the '[' added in front; Qt points at or just after the trouble.
        const qsizetype offset = qMax(0, parseError.offset - 1);
        const qsizetype line = utf8.left(offset).count('\n') + 1;
        const qsizetype column = offset - utf8.lastIndexOf('\n', offset - 1);
        *error = parseError.error == QJsonParseError::NoError
            ? QStringLiteral("One JSON value is expected")
            : QStringLiteral("Near line %1, column %2: %3").arg(line).arg(column).arg(parseError.errorString());
        return std::nullopt;
    }
    if (value->isNull()) {
        *error = QStringLiteral("A message cannot be null");
        return std::nullopt;
    }
    const QByteArray compact = QJsonDocument(QJsonArray{*value}).toJson(QJsonDocument::Compact);
    return compact.mid(1, compact.size() - 2);
}

} // namespace Broker::Ui
