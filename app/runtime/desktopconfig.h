// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/configchange.h"
#include "core/result.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace Broker {

// The desktop app's configuration file. `requested` (from --config) is used as given; without it
// the file is ~/.config/brokerdesk/message_broker.yaml, made on the first run with the desktop's
// defaults (loopback API on 8080, the memory store journaled to disk). The users file is made by
// the broker on its first start, with a fresh admin key shown once.
Result<QString> desktopConfigFile(const QString &requested);

// Writes `changes` into the desktop's configuration file in place (other keys are kept) under the
// desktop's header comment; the file is replaced atomically, and left as it was on failure.
Result<void> writeDesktopConfig(const QString &file, const QList<ConfigChange> &changes);

// The bytes of `file`, or nothing when there is no such file (or it cannot be read): what
// restoreFile() puts back when settings that were written did not work.
std::optional<QByteArray> readFileIfAny(const QString &file);
// Replaces `file` atomically with `content` (its mode kept), or removes it when there is no content.
Result<void> restoreFile(const QString &file, const std::optional<QByteArray> &content);

} // namespace Broker
