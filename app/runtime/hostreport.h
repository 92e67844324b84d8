// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hostsettings.h"

#include "core/brokerconfig.h"
#include "core/errorrecord.h"
#include "core/queueconfig.h"
#include "core/user.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <array>

namespace Broker {

// What a start (or restart) of the broker host came to, as plain values for another thread.
struct StartReport
{
    bool ok = false;
    QString error;                // why it failed, naming file and line where there is one
    StartStage failedStage = StartStage::Config;
    QString apiUrl;               // "http://127.0.0.1:8080"; empty when the API is not served
    QString storage;              // "memory" or "redis"
    QString durability;           // "none", "no", "everysec" or "always"
    QString configFile;
    QString usersFile;
    QStringList configWarnings;
    QList<IssuedKey> issuedKeys;  // keys generated for this start: shown to the user once
    QStringList queueTypes;       // for the create-queue dialog
    QueueDefaults queueDefaults;  // the engine's (configured) defaults, for reading a new queue's options
    QStringList roles;            // for the user dialog
    QStringList adminRoles;       // those of `roles` that grant everything: taking them away needs a warning
    BrokerConfig config;          // in force, after the environment's overrides
};

// The parts of a host's state that change rarely; sent when they change.
struct HostDirectory
{
    QList<User> users;            // sorted by id
    QList<ErrorRecord> errors;    // newest first
    std::array<qint64, 4> errorTotals{}; // by Severity
};

} // namespace Broker

Q_DECLARE_METATYPE(Broker::StartReport)
Q_DECLARE_METATYPE(Broker::HostDirectory)
