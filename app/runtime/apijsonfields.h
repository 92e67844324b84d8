// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The small readers the ApiJson files share (not part of ApiJson's interface).

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QStringList>

#include <cmath>
#include <optional>

namespace Broker::ApiJson::Fields {

// The API writes times as unix seconds (with a fraction); null reads as 0.
inline qint64 millis(const QJsonValue &unixSeconds)
{
    return qint64(std::llround(unixSeconds.toDouble() * 1000));
}

inline QStringList strings(const QJsonValue &array)
{
    QStringList out;
    for (const QJsonValue &value : array.toArray())
        out.append(value.toString());
    return out;
}

// Each element of the array `key` read by `read` (an optional: what cannot be read is left out).
template<typename T, typename Reader>
QList<T> listOf(const QJsonObject &json, QStringView key, Reader read)
{
    QList<T> out;
    for (const QJsonValue &value : json.value(key).toArray()) {
        if (std::optional<T> item = read(value.toObject()))
            out.append(std::move(*item));
    }
    return out;
}

} // namespace Broker::ApiJson::Fields
