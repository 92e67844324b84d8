// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "remotefeed.h"

#include "core/result.h"

#include <QList>
#include <QString>
#include <QUrl>

namespace Broker {

// A remote broker the desktop administers: where it is and how its key is found. The key itself
// is never in a profile: it lives in the desktop's keyring, or in a file the user names, or is
// asked for once per session.
struct ConnectionProfile
{
    enum class KeySource { Keyring, KeyFile, AskEachSession };

    QString name;          // unique; shown in the brokers table and tabs
    QUrl url;              // http(s)://host:port
    QString caFile;        // https: PEM file of the CAs that sign its certificate; empty: the system's
    KeySource keySource = KeySource::Keyring;
    QString keyFile;       // KeySource::KeyFile: the file holding the key (its first line)

    friend bool operator==(const ConnectionProfile &, const ConnectionProfile &) = default;
};

QString keySourceName(ConnectionProfile::KeySource source); // "keyring", "key_file", "ask"

// Checks a profile as the user typed it: a name, an http or https URL with a host, a readable CA
// file of PEM certificates for https, a key file for KeySource::KeyFile. The error names the field.
Result<void> checkProfile(const ConnectionProfile &profile);

// The endpoint a profile and its key make (the CA file read).
Result<RemoteEndpoint> endpointOf(const ConnectionProfile &profile, const QByteArray &apiKey);

// The first line of a key file, trimmed; refused when empty or unreadable.
Result<QByteArray> readKeyFile(const QString &path);

// The desktop's remote connections, kept as JSON in `file` (mode 0600; written atomically; no
// keys). A missing file is an empty list; a damaged one is an error that names it, and is left as
// it was (not overwritten) until the user saves on purpose.
class ConnectionProfiles
{
public:
    explicit ConnectionProfiles(QString file) : m_file(std::move(file)) {}
    // ~/.config/brokerdesk/connections.json ($XDG_CONFIG_HOME).
    static QString defaultFile();

    Result<QList<ConnectionProfile>> load() const;
    Result<void> save(const QList<ConnectionProfile> &profiles) const;
    const QString &file() const { return m_file; }

private:
    QString m_file;
};

} // namespace Broker
