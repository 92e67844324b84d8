// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringView>

namespace Broker::QueueName {

// ^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$ — checked by hand (no regex engine on the hot path).
// Names are never rewritten: what is not valid is refused.
bool isValid(QStringView name);

} // namespace Broker::QueueName
