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

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Walks JSON text token by token without building values, so that object members keep the order
// they were written in (QJsonObject sorts its keys). `json` must already be valid JSON.
QByteArray reformat(const QByteArray &json, bool indented)
{
    QByteArray out;
    out.reserve(json.size() + (indented ? json.size() / 2 : 0));
    int depth = 0;
    auto newline = [&] {
        out += '\n';
        out += QByteArray(4 * depth, ' ');
    };
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json.at(i);
        if (c == '"') {
            const qsizetype start = i++;
            while (i < json.size() && json.at(i) != '"')
                i += json.at(i) == '\\' ? 2 : 1;
            out += json.mid(start, i - start + 1);
            continue;
        }
        if (isJsonSpace(c))
            continue;
        if (!indented) {
            out += c;
            continue;
        }
        switch (c) {
        case '{':
        case '[': {
            qsizetype next = i + 1;
            while (next < json.size() && isJsonSpace(json.at(next)))
                ++next;
            out += c;
            if (next < json.size() && (json.at(next) == '}' || json.at(next) == ']')) {
                out += json.at(next); // an empty object or array stays on its line
                i = next;
            } else {
                ++depth;
                newline();
            }
            break;
        }
        case '}':
        case ']':
            --depth;
            newline();
            out += c;
            break;
        case ',':
            out += c;
            newline();
            break;
        case ':': out += ": "; break;
        default: out += c;
        }
    }
    return out;
}

} // namespace

QString prettyJson(const QByteArray &json)
{
    QJsonParseError error;
    if (!parseValue(json, &error))
        return QString::fromUtf8(json);
    return QString::fromUtf8(reformat(json, true));
}

QByteArray compactJsonText(const QByteArray &json)
{
    return reformat(json, false);
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
    return reformat(utf8, false); // as typed, keys in their order, only the spaces between tokens gone
}

} // namespace Broker::Ui
