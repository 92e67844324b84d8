// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokerconfig.h"

#include <yaml-cpp/yaml.h>

namespace Broker {

class YamlContext;

// Reads the top-level `processors:` list (a sequence of mappings) into `out`. Stricter than the
// rest of the file: an unknown key in an entry is an error, not a warning, because a misspelt
// `timout_ms` or `header` would silently run a processor other than the one written down.
// Errors name the entry ("processors[2]") and the file position; never a secret or a header value.
void readProcessors(YamlContext &context, const YAML::Node &node, QList<BrokerConfig::Processor> &out);

} // namespace Broker
