// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

namespace BrokerCtl {

// Pieces of a JSON text, cut out as they are written. Qt's JSON classes keep object members
// sorted by key, so a payload that went through them would come out with its keys reordered;
// brokerctl shows and exports messages exactly as the broker returned them by taking their text
// from the answer instead. The text must be valid JSON (check it with QJsonDocument first when it
// does not come from the broker); on malformed text these return what they found so far.
namespace RawJson {

// The members of the object `text`, values as their JSON text.
QList<QPair<QString, QByteArray>> members(QByteArrayView text);
// The JSON text of member `key` of the object `text`; null when there is none.
QByteArray member(QByteArrayView text, QStringView key);
// The elements of the array `text`, as their JSON text.
QList<QByteArray> elements(QByteArrayView text);

} // namespace RawJson

} // namespace BrokerCtl
