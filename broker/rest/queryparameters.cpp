// SPDX-License-Identifier: GPL-3.0-or-later
#include "queryparameters.h"

#include <algorithm>

namespace Broker::Rest {

namespace {

QByteArray decoded(QByteArrayView text)
{
    if (!text.contains('%'))
        return text.toByteArray();
    return QByteArray::fromPercentEncoding(text.toByteArray());
}

QString decodedText(QByteArrayView text)
{
    if (!text.contains('%'))
        return QString::fromUtf8(text);
    return QString::fromUtf8(QByteArray::fromPercentEncoding(text.toByteArray()));
}

} // namespace

QueryParameters::QueryParameters(QByteArrayView encoded) : m_encoded(encoded.toByteArray())
{
    // Every piece between '&' is an item, an empty one too (empty name and value), but for an empty
    // last piece: as QUrlQuery reads them.
    const QByteArrayView all(m_encoded);
    for (qsizetype start = 0; start < all.size();) {
        qsizetype end = all.indexOf('&', start);
        if (end < 0)
            end = all.size();
        const qsizetype equals = all.sliced(start, end - start).indexOf('=');
        if (equals < 0)
            m_items.append(Item{decoded(all.sliced(start, end - start)), 0, 0});
        else
            m_items.append(Item{decoded(all.sliced(start, equals)), start + equals + 1, end - start - equals - 1});
        start = end + 1;
    }
}

const QueryParameters::Item *QueryParameters::find(QByteArrayView name) const
{
    for (const Item &item : m_items) {
        if (item.name == name)
            return &item;
    }
    return nullptr;
}

QString QueryParameters::valueOf(const Item &item) const
{
    return decodedText(QByteArrayView(m_encoded).sliced(item.valueAt, item.valueSize));
}

QString QueryParameters::value(QByteArrayView name) const
{
    const Item *item = find(name);
    return item ? valueOf(*item) : QString();
}

QStringList QueryParameters::values(QByteArrayView name) const
{
    QStringList out;
    for (const Item &item : m_items) {
        if (item.name == name)
            out.append(valueOf(item));
    }
    return out;
}

QList<QPair<QString, QString>> QueryParameters::items() const
{
    QList<QPair<QString, QString>> out;
    out.reserve(m_items.size());
    for (const Item &item : m_items)
        out.append({QString::fromUtf8(item.name), valueOf(item)});
    return out;
}

bool QueryParameters::hasNameAmong(const QStringList &names) const
{
    for (const Item &item : m_items) {
        const QByteArrayView name = QByteArrayView(item.name).trimmed();
        if (std::all_of(name.begin(), name.end(), [](char c) { return uchar(c) < 0x80; })) {
            for (const QString &candidate : names) {
                if (candidate.size() == name.size() && QLatin1StringView(name).compare(candidate, Qt::CaseInsensitive) == 0)
                    return true;
            }
        } else if (names.contains(QString::fromUtf8(item.name).trimmed(), Qt::CaseInsensitive)) {
            return true; // Unicode case folding: U+212A KELVIN SIGN is a 'k'
        }
    }
    return false;
}

} // namespace Broker::Rest
