// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hostsettings.h"

#include "core/brokerconfig.h"
#include "core/errorrecord.h"
#include "core/queueconfig.h"
#include "core/user.h"

#include <QDateTime>
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
    int freePort = 0;             // when the port was taken: one free on the same address just now (0: none)
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
    // In force: the file, then the environment, then the command line (--port, as HostSettings
    // says). After a failure: what the file and environment said (the defaults when the file
    // itself could not be read: then configLoaded is false).
    BrokerConfig config;
    bool configLoaded = false;
    int commandLinePort = -1;     // the port given on the command line (-1: none); config.api.port shows it
    int configuredPort = 0;       // api.port of the file (and environment), whatever the command line says
    QString commandLineBind;      // likewise for the bind address (empty: none)
};

// What applying settings came to. When the start on the new settings failed and the broker had
// run before, the configuration file was put back as it was and the broker restarted on the
// last settings that worked: `restored` is that restart.
struct ApplyReport
{
    StartReport attempt;
    bool rolledBack = false;
    StartReport restored;         // meaningful when rolledBack
    QString restoreError;         // the file could not be put back (then restored tells how the restart went)
};

// What reloading the API's certificate without a restart came to.
struct TlsReloadReport
{
    BrokerConfig config;          // the settings in force afterwards (the file's api.tls applied)
    QString subject;              // the new certificate's common name (or first alternative name)
    QString fingerprint;          // its SHA-256, "AA:BB:…"
    QDateTime notAfter;           // its expiry (UTC)
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
Q_DECLARE_METATYPE(Broker::ApplyReport)
