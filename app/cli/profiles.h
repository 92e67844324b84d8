// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace BrokerCtl {

// Saved connections ("profiles") in $XDG_CONFIG_HOME/brokerctl/config (~/.config/brokerctl/config
// when XDG_CONFIG_HOME is unset). An INI-like text file, one section per profile:
//
//   # comments start with '#' or ';'
//   [prod]
//   url = https://broker.example.com:8443
//   key_file = prod.key                   # relative to the config folder; ~/ is the home folder
//   ca_file = prod-ca.crt                 # https: the CA to trust (as --cacert); same rules as key_file
//   [lab]
//   url = https://192.168.1.20:8443
//   insecure = true                       # https without verification (as --insecure)
//   [staging]
//   url = http://10.0.0.5:8080
//   key_command = pass show brokerdesk/staging   # run by /bin/sh; its first output line is the key
//
// A profile names where its key is, never the key itself, so the key is not on a command line or
// in this file. The file is written with mode 0600.
struct Profile
{
    QString name;
    QString url;
    QString keyFile;
    QString keyCommand;
    QString caFile;
    bool insecure = false;
};

class Profiles
{
public:
    static QString configPath();
    // Every profile of the file; an empty list when there is no file. `error` says what is wrong
    // with a malformed file (line number and why).
    static QList<Profile> load(const QString &path, QString *error);
    static bool save(const QString &path, const QList<Profile> &profiles, QString *error);

    // The key the profile points to: the file's content or the command's first output line,
    // trimmed. False with `error` when it cannot be had (missing file, failing command, 10 s
    // timeout).
    static bool readKey(const Profile &profile, QByteArray &key, QString *error);
    // key_file as a path: relative names are in the config folder, "~/" is the home folder.
    static QString resolvedKeyFile(const Profile &profile);
    // ca_file as a path, by the same rules.
    static QString resolvedCaFile(const Profile &profile);
};

} // namespace BrokerCtl
