// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/configchange.h"
#include "core/result.h"

#include <QString>

namespace Broker {

// The desktop app's configuration file. `requested` (from --config) is used as given; without it
// the file is ~/.config/brokerdesk/message_broker.yaml, made on the first run with the desktop's
// defaults (loopback API on 8080, the memory store journaled to disk). The users file is made by
// the broker on its first start, with a fresh admin key shown once.
Result<QString> desktopConfigFile(const QString &requested);

// Writes `changes` into the desktop's configuration file in place (other keys are kept) under the
// desktop's header comment; the file is replaced atomically, and left as it was on failure.
Result<void> writeDesktopConfig(const QString &file, const QList<ConfigChange> &changes);

} // namespace Broker
