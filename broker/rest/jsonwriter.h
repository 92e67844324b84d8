// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The REST layer writes its answers with the engine side's JsonWriter (core), which the webhook
// processor shares to send messages exactly as consumers receive them.
#include "core/jsonwriter.h"

namespace Broker::Rest {
using Broker::JsonWriter;
} // namespace Broker::Rest
