// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Small pieces the command groups share: how a path segment, a request body and a message are
// written, and how a JSON answer becomes key/value lines.

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>

namespace BrokerCtl {

// A path segment, percent-encoded (queue names and ids may hold characters a URL reserves).
QString encoded(const QString &segment);

// A request body: compact JSON.
QByteArray compact(const QJsonObject &object);

// Text given as a message, as JSON text for a request body: the text itself, byte for byte, when
// it is JSON (so that its keys keep their order), otherwise the text as a JSON string.
QByteArray messageText(const QString &text);

// `object` (compact JSON text of an object) with one more member whose value is the JSON text
// `valueText`, appended as it is.
QByteArray withMember(const QByteArray &object, const char *key, const QByteArray &valueText);

// A message of an answer (its JSON text) as one line for a person: "id data [(receipt r)]",
// with the payload as the broker returned it.
QString messageLine(const QByteArray &messageText);

// The leaves of `object` as "a.b" -> cell text, nested objects flattened with dotted keys; unix
// times as ISO 8601.
QList<QPair<QString, QString>> pairsOf(const QJsonObject &object, const QString &prefix = {});

} // namespace BrokerCtl
