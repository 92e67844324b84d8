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

// Text given as a message: JSON when it is JSON, otherwise a JSON string.
QJsonValue messageValue(const QString &text);

// The leaves of `object` as "a.b" -> cell text, nested objects flattened with dotted keys.
QList<QPair<QString, QString>> pairsOf(const QJsonObject &object, const QString &prefix = {});

} // namespace BrokerCtl
