// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QVariant>

namespace Broker {

// One setting of message_broker.yaml to change: its dotted key ("api.port") and the new value
// (bool, whole number or text), as the desktop's Settings page hands it to the runtime.
using ConfigChange = QPair<QString, QVariant>;

} // namespace Broker
