// SPDX-License-Identifier: GPL-3.0-or-later
#include "desktopconfig.h"

#include "config/configeditor.h"
#include "core/brokerconfig.h"
#include "core/storageoptions.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace Broker {

Result<QString> desktopConfigFile(const QString &requested)
{
    if (!requested.isEmpty())
        return QFileInfo(requested).absoluteFilePath();
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/brokerdesk");
    const QString file = dir + QStringLiteral("/message_broker.yaml");
    if (QFile::exists(file))
        return file;
    if (!QDir().mkpath(dir))
        return Error{ErrorCode::Unavailable, QStringLiteral("cannot create %1").arg(dir)};
    QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    // The defaults, written out so that a user sees what they run on; the journal is on, since
    // desktop users expect their queues back after a restart or a crash.
    const BrokerConfig defaults;
    const Result<void> written = writeDesktopConfig(
        file, {{QStringLiteral("api.bind"), defaults.api.bind},
               {QStringLiteral("api.port"), defaults.api.port},
               {QStringLiteral("storage.backend"), storageBackendName(defaults.storage.backend)},
               {QStringLiteral("storage.memory.journal.enabled"), true},
               {QStringLiteral("storage.memory.journal.fsync"), fsyncPolicyName(defaults.storage.journal.fsync)},
               {QStringLiteral("security.users_file"), defaults.security.usersFile}});
    if (!written)
        return written.error();
    return file;
}

Result<void> writeDesktopConfig(const QString &file, const QList<ConfigChange> &changes)
{
    return ConfigEditor::apply(file, changes,
                               QStringLiteral("BrokerDesk desktop configuration; the Settings page rewrites this file.\n"
                                              "Every key of message_broker.yaml may be set here."));
}

} // namespace Broker

namespace Broker {

std::optional<QByteArray> readFileIfAny(const QString &file)
{
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        return std::nullopt;
    return in.readAll();
}

Result<void> restoreFile(const QString &file, const std::optional<QByteArray> &content)
{
    if (!content) {
        if (QFile::exists(file) && !QFile::remove(file))
            return Error{ErrorCode::Unavailable, QStringLiteral("cannot remove %1").arg(file)};
        return {};
    }
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly))
        return Error{ErrorCode::Unavailable, QStringLiteral("cannot write %1: %2").arg(file, out.errorString())};
    if (out.write(*content) != content->size() || !out.commit())
        return Error{ErrorCode::Unavailable, QStringLiteral("cannot write %1: %2").arg(file, out.errorString())};
    return {};
}

} // namespace Broker
