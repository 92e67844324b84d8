// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace Broker::Ui {

// Message bodies are any JSON value (not only objects), which QJsonDocument alone cannot parse.
// Neither function builds a QJsonObject from the text: that would sort the keys. Members stay in
// the order they were written, numbers and escapes stay as written; only whitespace between
// tokens changes.
// Indented text of a JSON value (four spaces a level); the text itself when it is not JSON.
QString prettyJson(const QByteArray &json);
// Valid JSON text without the whitespace between tokens.
QByteArray compactJsonText(const QByteArray &json);
// Compact JSON of the text, or nothing with `error` set to what is wrong and where.
std::optional<QByteArray> compactJson(const QString &text, QString *error);

} // namespace Broker::Ui
