// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVarLengthArray>

namespace Broker::Rest {

// A request's query string, split once into its items and read by name without making a string
// for the name; values are percent-decoded (UTF-8) when asked for. Reads as QUrlQuery does with
// QUrl::FullyDecoded: items split at '&', an item without '=' has an empty value, '+' stays '+',
// names are compared decoded, the first of repeated names answers value().
class QueryParameters
{
public:
    QueryParameters() = default;
    explicit QueryParameters(QByteArrayView encoded); // the part after '?', as sent

    bool isEmpty() const { return m_items.isEmpty(); }
    bool contains(QByteArrayView name) const { return find(name) != nullptr; }
    QString value(QByteArrayView name) const; // empty when missing
    QStringList values(QByteArrayView name) const;
    QList<QPair<QString, QString>> items() const;
    // Whether an item's name, trimmed, is one of `names` in any case, as QString compares with
    // Qt::CaseInsensitive (an ASCII name is compared without making a string of it).
    bool hasNameAmong(const QStringList &names) const;

private:
    struct Item
    {
        QByteArray name;        // decoded
        qsizetype valueAt = 0;  // the value as sent: where it is in m_encoded, and its size
        qsizetype valueSize = 0;
    };
    QString valueOf(const Item &item) const;
    const Item *find(QByteArrayView name) const;

    QByteArray m_encoded;
    QVarLengthArray<Item, 4> m_items;
};

} // namespace Broker::Rest
