// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSaveFile>

namespace BrokerCtl {

QString Profiles::configPath()
{
    QString base = qEnvironmentVariable("XDG_CONFIG_HOME");
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.config");
    return base + QStringLiteral("/brokerctl/config");
}

QList<Profile> Profiles::load(const QString &path, QString *error)
{
    QList<Profile> profiles;
    QFile file(path);
    if (!file.exists())
        return profiles;
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return {};
    }
    int number = 0;
    while (!file.atEnd()) {
        ++number;
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith(u'#') || line.startsWith(u';'))
            continue;
        if (line.startsWith(u'[') && line.endsWith(u']')) {
            profiles.append(Profile{line.mid(1, line.size() - 2).trimmed(), {}, {}, {}, {}, false});
            continue;
        }
        const qsizetype equals = line.indexOf(u'=');
        if (equals < 0 || profiles.isEmpty()) {
            *error = QStringLiteral("%1 line %2: expected [profile] or key = value").arg(path).arg(number);
            return {};
        }
        const QString key = line.left(equals).trimmed();
        const QString value = line.mid(equals + 1).trimmed();
        Profile &profile = profiles.last();
        if (key == u"url")
            profile.url = value;
        else if (key == u"key_file")
            profile.keyFile = value;
        else if (key == u"key_command")
            profile.keyCommand = value;
        else if (key == u"ca_file")
            profile.caFile = value;
        else if (key == u"insecure" && (value == u"true" || value == u"false"))
            profile.insecure = value == u"true";
        else if (key == u"insecure") {
            *error = QStringLiteral("%1 line %2: insecure is true or false").arg(path).arg(number);
            return {};
        } else {
            *error = QStringLiteral("%1 line %2: unknown key '%3' (url, key_file, key_command, ca_file, insecure)")
                         .arg(path)
                         .arg(number)
                         .arg(key);
            return {};
        }
    }
    return profiles;
}

bool Profiles::save(const QString &path, const QList<Profile> &profiles, QString *error)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QByteArray text = "# brokerctl profiles: brokerctl --profile NAME ... (see brokerctl help)\n";
    for (const Profile &profile : profiles) {
        text += "\n[" + profile.name.toUtf8() + "]\nurl = " + profile.url.toUtf8() + '\n';
        if (!profile.keyFile.isEmpty())
            text += "key_file = " + profile.keyFile.toUtf8() + '\n';
        if (!profile.keyCommand.isEmpty())
            text += "key_command = " + profile.keyCommand.toUtf8() + '\n';
        if (!profile.caFile.isEmpty())
            text += "ca_file = " + profile.caFile.toUtf8() + '\n';
        if (profile.insecure)
            text += "insecure = true\n";
    }
    file.write(text);
    if (!file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

namespace {

QString resolvedPath(const QString &path)
{
    if (path.startsWith(QStringLiteral("~/")))
        return QDir::homePath() + path.mid(1);
    return QFileInfo(QFileInfo(Profiles::configPath()).absoluteDir(), path).absoluteFilePath();
}

} // namespace

QString Profiles::resolvedKeyFile(const Profile &profile)
{
    return resolvedPath(profile.keyFile);
}

QString Profiles::resolvedCaFile(const Profile &profile)
{
    return resolvedPath(profile.caFile);
}

bool Profiles::readKey(const Profile &profile, QByteArray &key, QString *error)
{
    if (!profile.keyFile.isEmpty()) {
        QFile file(resolvedKeyFile(profile));
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("profile %1: cannot read its key file %2: %3")
                         .arg(profile.name, file.fileName(), file.errorString());
            return false;
        }
        key = file.readAll().trimmed();
        return true;
    }
    if (!profile.keyCommand.isEmpty()) {
        QProcess command;
        command.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        command.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), profile.keyCommand});
        // Run before the event loop starts (the key is needed for the first request); bounded.
        if (!command.waitForFinished(10'000) || command.exitStatus() != QProcess::NormalExit
            || command.exitCode() != 0) {
            command.kill();
            command.waitForFinished(1000);
            *error = QStringLiteral("profile %1: its key_command failed").arg(profile.name);
            return false;
        }
        key = command.readAllStandardOutput().split('\n').value(0).trimmed();
        return true;
    }
    key.clear();
    return true;
}

} // namespace BrokerCtl
