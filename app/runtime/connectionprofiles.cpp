// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionprofiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSet>
#include <QStandardPaths>

namespace Broker {

namespace {

constexpr int FormatVersion = 1;

Error invalid(const QString &message)
{
    return Error{ErrorCode::InvalidArgument, message};
}

std::optional<ConnectionProfile::KeySource> keySourceFromName(const QString &name)
{
    for (auto source : {ConnectionProfile::KeySource::Keyring, ConnectionProfile::KeySource::KeyFile,
                        ConnectionProfile::KeySource::AskEachSession}) {
        if (name == keySourceName(source))
            return source;
    }
    return std::nullopt;
}

} // namespace

QString keySourceName(ConnectionProfile::KeySource source)
{
    switch (source) {
    case ConnectionProfile::KeySource::Keyring: return QStringLiteral("keyring");
    case ConnectionProfile::KeySource::KeyFile: return QStringLiteral("key_file");
    case ConnectionProfile::KeySource::AskEachSession: return QStringLiteral("ask");
    }
    return QStringLiteral("ask");
}

Result<void> checkProfile(const ConnectionProfile &profile)
{
    if (profile.name.trimmed().isEmpty() || profile.name.size() > 100)
        return invalid(QStringLiteral("Name: 1 to 100 characters"));
    const QUrl &url = profile.url;
    if (!url.isValid() || (url.scheme() != u"http" && url.scheme() != u"https") || url.host().isEmpty())
        return invalid(QStringLiteral("URL: http://host:port or https://host:port"));
    if (!url.userInfo().isEmpty())
        return invalid(QStringLiteral("URL: no user or password in it (the API key is asked for apart)"));
    if (!profile.caFile.isEmpty()) {
        if (url.scheme() != u"https")
            return invalid(QStringLiteral("CA file: only for an https URL"));
        if (QSslCertificate::fromPath(profile.caFile).isEmpty())
            return invalid(QStringLiteral("CA file: %1 holds no PEM certificate (or cannot be read)").arg(profile.caFile));
    }
    if (profile.keySource == ConnectionProfile::KeySource::KeyFile) {
        if (const Result<QByteArray> key = readKeyFile(profile.keyFile); !key)
            return key.error();
    }
    return {};
}

Result<QByteArray> readKeyFile(const QString &path)
{
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly))
        return invalid(QStringLiteral("Key file: %1 cannot be read").arg(path.isEmpty() ? QStringLiteral("none named") : path));
    const QByteArray key = file.readLine(4096).trimmed();
    if (key.isEmpty())
        return invalid(QStringLiteral("Key file: %1 is empty").arg(path));
    return key;
}

Result<RemoteEndpoint> endpointOf(const ConnectionProfile &profile, const QByteArray &apiKey)
{
    RemoteEndpoint endpoint;
    endpoint.url = profile.url;
    endpoint.apiKey = apiKey;
    if (!profile.caFile.isEmpty()) {
        endpoint.caCertificates = QSslCertificate::fromPath(profile.caFile);
        if (endpoint.caCertificates.isEmpty())
            return invalid(QStringLiteral("CA file: %1 holds no PEM certificate (or cannot be read)").arg(profile.caFile));
    }
    return endpoint;
}

QString ConnectionProfiles::defaultFile()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation))
        .filePath(QStringLiteral("brokerdesk/connections.json"));
}

Result<QList<ConnectionProfile>> ConnectionProfiles::load() const
{
    QFile file(m_file);
    if (!file.exists())
        return QList<ConnectionProfile>{};
    if (!file.open(QIODevice::ReadOnly))
        return Error{ErrorCode::Internal, QStringLiteral("cannot read %1: %2").arg(m_file, file.errorString())};
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return invalid(QStringLiteral("%1 is damaged (%2); it is left as it is")
                           .arg(m_file, parseError.error != QJsonParseError::NoError ? parseError.errorString()
                                                                                     : QStringLiteral("not an object")));
    QList<ConnectionProfile> profiles;
    QSet<QString> names;
    for (const QJsonValue &value : document.object().value(u"connections").toArray()) {
        const QJsonObject json = value.toObject();
        ConnectionProfile profile;
        profile.name = json.value(u"name").toString();
        profile.url = QUrl(json.value(u"url").toString());
        profile.caFile = json.value(u"ca_file").toString();
        profile.keyFile = json.value(u"key_file").toString();
        const std::optional<ConnectionProfile::KeySource> source = keySourceFromName(json.value(u"key_source").toString());
        if (!source || profile.name.isEmpty() || names.contains(profile.name) || !profile.url.isValid())
            return invalid(QStringLiteral("%1 is damaged (connection %2 is not readable); it is left as it is")
                               .arg(m_file).arg(profiles.size() + 1));
        profile.keySource = *source;
        names.insert(profile.name);
        profiles.append(profile);
    }
    return profiles;
}

Result<void> ConnectionProfiles::save(const QList<ConnectionProfile> &profiles) const
{
    QJsonArray connections;
    for (const ConnectionProfile &profile : profiles) {
        QJsonObject json{{QStringLiteral("name"), profile.name},
                         {QStringLiteral("url"), profile.url.toString()},
                         {QStringLiteral("key_source"), keySourceName(profile.keySource)}};
        if (!profile.caFile.isEmpty())
            json.insert(QStringLiteral("ca_file"), profile.caFile);
        if (!profile.keyFile.isEmpty())
            json.insert(QStringLiteral("key_file"), profile.keyFile);
        connections.append(json);
    }
    const QByteArray text = QJsonDocument(QJsonObject{{QStringLiteral("version"), FormatVersion},
                                                      {QStringLiteral("connections"), connections}})
                                .toJson(QJsonDocument::Indented);
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    QSaveFile file(m_file);
    if (!file.open(QIODevice::WriteOnly))
        return Error{ErrorCode::Internal, QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString())};
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (file.write(text) != text.size() || !file.commit())
        return Error{ErrorCode::Internal, QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString())};
    return {};
}

} // namespace Broker
