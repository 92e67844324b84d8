// SPDX-License-Identifier: GPL-3.0-or-later
#include "rawjson.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace BrokerCtl::RawJson {

namespace {

qsizetype skipSpace(QByteArrayView text, qsizetype at)
{
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
        ++at;
    return at;
}

// Where the value starting at `at` ends (one past its last byte), or -1.
qsizetype valueEnd(QByteArrayView text, qsizetype at)
{
    if (at >= text.size())
        return -1;
    if (text[at] == '"') {
        for (qsizetype i = at + 1; i < text.size(); ++i) {
            if (text[i] == '\\')
                ++i;
            else if (text[i] == '"')
                return i + 1;
        }
        return -1;
    }
    if (text[at] == '{' || text[at] == '[') {
        int depth = 0;
        for (qsizetype i = at; i < text.size(); ++i) {
            const char c = text[i];
            if (c == '"') {
                i = valueEnd(text, i);
                if (i < 0)
                    return -1;
                --i;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return i + 1;
            }
        }
        return -1;
    }
    qsizetype i = at; // number, true, false, null
    while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && text[i] != ' ' && text[i] != '\n'
           && text[i] != '\t' && text[i] != '\r')
        ++i;
    return i > at ? i : -1;
}

QString keyText(QByteArrayView quoted)
{
    if (!quoted.contains('\\'))
        return QString::fromUtf8(quoted.sliced(1, quoted.size() - 2));
    const QJsonDocument wrapped = QJsonDocument::fromJson("[" + quoted.toByteArray() + "]");
    return wrapped.array().at(0).toString();
}

// Calls `visit(keyText, valueText)` for each member or element (key empty for arrays).
template<typename Visit>
void scan(QByteArrayView text, char open, char close, Visit visit)
{
    qsizetype at = skipSpace(text, 0);
    if (at >= text.size() || text[at] != open)
        return;
    at = skipSpace(text, at + 1);
    while (at < text.size() && text[at] != close) {
        QString key;
        if (open == '{') {
            const qsizetype keyEnd = valueEnd(text, at);
            if (keyEnd < 0)
                return;
            key = keyText(text.sliced(at, keyEnd - at));
            at = skipSpace(text, keyEnd);
            if (at >= text.size() || text[at] != ':')
                return;
            at = skipSpace(text, at + 1);
        }
        const qsizetype end = valueEnd(text, at);
        if (end < 0)
            return;
        visit(key, text.sliced(at, end - at));
        at = skipSpace(text, end);
        if (at < text.size() && text[at] == ',')
            at = skipSpace(text, at + 1);
    }
}

} // namespace

QList<QPair<QString, QByteArray>> members(QByteArrayView text)
{
    QList<QPair<QString, QByteArray>> found;
    scan(text, '{', '}', [&](const QString &key, QByteArrayView value) { found.append({key, value.toByteArray()}); });
    return found;
}

QByteArray member(QByteArrayView text, QStringView key)
{
    QByteArray found;
    scan(text, '{', '}', [&](const QString &name, QByteArrayView value) {
        if (found.isNull() && name == key)
            found = value.toByteArray();
    });
    return found;
}

QList<QByteArray> elements(QByteArrayView text)
{
    QList<QByteArray> found;
    scan(text, '[', ']', [&](const QString &, QByteArrayView value) { found.append(value.toByteArray()); });
    return found;
}

} // namespace BrokerCtl::RawJson
