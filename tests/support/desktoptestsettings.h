// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/hostsettings.h"

#include <QFile>
#include <QTemporaryDir>

namespace Broker::Test {

// The settings of an embedded broker for a desktop test, as the app's first start makes them: a
// message_broker.yaml in `dir` that serves the REST API on a free loopback port, and a users file
// made (with a fresh admin key) at the first start. An empty result when the file could not be
// written, which the caller checks.
inline HostSettings desktopTestSettings(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("message_broker.yaml"));
    QFile config(path);
    if (!dir.isValid() || !config.open(QIODevice::WriteOnly) || config.write("api: {bind: 127.0.0.1, port: 0}\n") <= 0)
        return {};
    HostSettings settings;
    settings.configFile = path;
    settings.createUsersFile = true;
    return settings;
}

} // namespace Broker::Test
