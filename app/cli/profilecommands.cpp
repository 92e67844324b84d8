// SPDX-License-Identifier: GPL-3.0-or-later
// profiles list|add: the saved connections (profiles.h). Local: no request to a broker.
#include "commands.h"

#include "commandsupport.h"
#include "profiles.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QUrl>

namespace BrokerCtl {

int Commands::profiles(const QStringList &words)
{
    const QString action = words.value(1);
    const QString path = Profiles::configPath();
    QString error;
    QList<Profile> saved = Profiles::load(path, &error);
    if (!error.isEmpty()) {
        Output::error(error);
        return Failure;
    }
    if (action == u"list" || action.isEmpty()) {
        QList<QStringList> rows;
        QJsonArray json;
        for (const Profile &profile : saved) {
            const QString key = !profile.keyFile.isEmpty() ? QStringLiteral("file ") + profile.keyFile
                : !profile.keyCommand.isEmpty()            ? QStringLiteral("command ") + profile.keyCommand
                                                           : QStringLiteral("-");
            const QString tls = profile.insecure ? QStringLiteral("not verified")
                : !profile.caFile.isEmpty()      ? QStringLiteral("CA ") + profile.caFile
                                                 : QStringLiteral("-");
            rows.append({profile.name, profile.url, key, tls});
            json.append(QJsonObject{{QStringLiteral("name"), profile.name},
                                    {QStringLiteral("url"), profile.url},
                                    {QStringLiteral("key_file"), profile.keyFile},
                                    {QStringLiteral("key_command"), profile.keyCommand},
                                    {QStringLiteral("ca_file"), profile.caFile},
                                    {QStringLiteral("insecure"), profile.insecure}});
        }
        m_output.table({QStringLiteral("PROFILE"), QStringLiteral("URL"), QStringLiteral("KEY FROM"),
                        QStringLiteral("TLS")},
                       rows,
                       compact(QJsonObject{{QStringLiteral("profiles"), json}, {QStringLiteral("file"), path}}));
        return Ok;
    }
    if (action != u"add") {
        Output::error(QStringLiteral(
            "usage: brokerctl profiles list | profiles add NAME --url URL [--key-file F | --key-command CMD] "
            "[--cacert F | --insecure]"));
        return UsageError;
    }
    const QUrl url(option("url"));
    if (words.size() < 3 || words[2].isEmpty() || words[2].contains(u']') || !url.isValid()
        || (url.scheme() != u"http" && url.scheme() != u"https")
        || (m_parser.isSet(QStringLiteral("key-file")) && m_parser.isSet(QStringLiteral("key-command")))
        || (m_parser.isSet(QStringLiteral("cacert")) && m_parser.isSet(QStringLiteral("insecure")))) {
        Output::error(QStringLiteral("usage: brokerctl profiles add NAME --url http(s)://HOST:PORT [--key-file F | "
                                     "--key-command CMD] [--cacert F | --insecure]"));
        return UsageError;
    }
    // The CA as an absolute path: a relative one would be read from the config folder later.
    const QString caFile = m_parser.isSet(QStringLiteral("cacert"))
        ? QFileInfo(option("cacert")).absoluteFilePath()
        : QString();
    Profile profile{words[2], url.toString(), option("key-file"), option("key-command"), caFile,
                    m_parser.isSet(QStringLiteral("insecure"))};
    const auto same =
        std::find_if(saved.begin(), saved.end(), [&](const Profile &p) { return p.name == profile.name; });
    if (same != saved.end())
        *same = profile;
    else
        saved.append(profile);
    if (!Profiles::save(path, saved, &error)) {
        Output::error(error);
        return Failure;
    }
    Output::note(QStringLiteral("profile %1 saved in %2; use: brokerctl --profile %1 COMMAND").arg(profile.name, path));
    return Ok;
}

} // namespace BrokerCtl
