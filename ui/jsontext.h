// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace Broker::Ui {

// Message bodies are any JSON value (not only objects), which QJsonDocument alone cannot parse.
// Indented text of a JSON value; the text itself when it is not JSON.
QString prettyJson(const QByteArray &json);
// Compact JSON of the text, or nothing with `error` set to what is wrong and where.
std::optional<QByteArray> compactJson(const QString &text, QString *error);

} // namespace Broker::Ui
