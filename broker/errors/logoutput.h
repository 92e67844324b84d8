// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QString>

namespace Broker::LogOutput {

// The level of every brokerdesk.* logging category: "debug", "info", "warning" or "error" (the
// config's core.log_level; gCore's core.debug and error.log_level). QT_LOGGING_RULES still wins
// for the categories it names: Qt applies it after these rules.
void setLevel(const QString &level);

// From now on every log line also goes to `path` (appended, as the console shows it); once the
// file passes `maxBytes` it is renamed path.1 (path.1 to path.2, and so on; RotatedFiles are
// kept) and a new one is begun. An empty path ends the file output. A file that cannot be opened
// is an error naming it, and the output stays as it was.
inline constexpr int RotatedFiles = 3;
Result<void> setFile(const QString &path, qint64 maxBytes);

} // namespace Broker::LogOutput
