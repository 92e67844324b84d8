// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/configchange.h"
#include "core/result.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QVariant>

namespace Broker {

// Changes single settings of a message_broker.yaml in place, for the desktop app's Settings page.
// Keys are dotted paths ("api.port"); values are written as YAML scalars of their type (bool,
// whole number, text). Other keys are kept; comments are not (yaml-cpp does not keep them), so
// the file gets `header` as its first comment lines. A setting written under BrokerDesk's name
// loses gCore's name for it (storage.redis.host replaces storage.host: gcorenames.h). The file is
// replaced atomically; when anything fails the old file stays as it was.
class ConfigEditor
{
public:
    using Change = ConfigChange;

    static Result<void> apply(const QString &path, const QList<Change> &changes, const QString &header = {});
};

} // namespace Broker
