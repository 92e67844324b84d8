// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Broker {

// Where a host finds its files. The users file, when relative, is resolved against the config
// file's folder (as message_broker.yaml's security.users_file says).
struct HostSettings
{
    QString configFile;       // empty: built-in defaults
    QString usersFile;        // empty: security.users_file from the config
    bool createUsersFile = false; // first run of a desktop: make one with a fresh admin key
    bool serveApi = true;         // start the REST API
    QString bindOverride;         // empty: api.bind from the config
    int portOverride = -1;        // -1: api.port from the config (0: any free port)
};

// What failed when start() failed; brokerd turns it into its exit code.
enum class StartStage { Config, Users, Storage, Listen };

} // namespace Broker
