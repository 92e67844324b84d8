// SPDX-License-Identifier: GPL-3.0-or-later
#include "configeditor.h"

#include "gcorenames.h"
#include "yamlsection.h"

#include <QFile>
#include <QSaveFile>

#include <yaml-cpp/yaml.h>

namespace Broker {

namespace {

// Walks to the parent of the last key, making missing mappings on the way, and sets the value.
Result<void> setPath(YAML::Node root, const QStringList &parts, const QVariant &value)
{
    YAML::Node node = root;
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        const std::string key = parts[i].toStdString();
        const YAML::Node existing = static_cast<const YAML::Node &>(node)[key];
        if (!existing.IsDefined() || existing.IsNull())
            node[key] = YAML::Node(YAML::NodeType::Map);
        else if (!existing.IsMap())
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("'%1' is not a mapping").arg(parts.mid(0, i + 1).join(QLatin1Char('.')))};
        // reset(), not operator=: assigning a yaml-cpp node writes through into the tree.
        node.reset(node[key]);
    }
    const std::string leaf = parts.last().toStdString();
    switch (value.typeId()) {
    case QMetaType::Bool: node[leaf] = value.toBool(); break;
    case QMetaType::Int:
    case QMetaType::LongLong: node[leaf] = value.toLongLong(); break;
    default: node[leaf] = value.toString().toStdString(); break;
    }
    return {};
}

// Removes the key at a dotted path; says whether there was one.
bool removePath(YAML::Node root, const QStringList &parts)
{
    YAML::Node parent = nodeAt(root, parts.mid(0, parts.size() - 1));
    return parent.IsMap() && parent.remove(parts.last().toStdString());
}

} // namespace

Result<void> ConfigEditor::apply(const QString &path, const QList<Change> &changes, const QString &header)
{
    YAML::Node root;
    if (QFile::exists(path)) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return Error{ErrorCode::Unavailable, QStringLiteral("%1: %2").arg(path, file.errorString())};
        try {
            root = YAML::Load(file.readAll().toStdString());
        } catch (const YAML::Exception &error) {
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("%1:%2:%3: %4")
                             .arg(path)
                             .arg(error.mark.line + 1)
                             .arg(error.mark.column + 1)
                             .arg(QString::fromStdString(error.msg))};
        }
    }
    if (!root.IsDefined() || root.IsNull())
        root = YAML::Node(YAML::NodeType::Map);
    if (!root.IsMap())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("%1: the top level is not a mapping").arg(path)};
    for (const Change &change : changes) {
        if (const Result<void> set = setPath(root, change.first.split(QLatin1Char('.')), change.second); !set)
            return Error{set.error().code, QStringLiteral("%1: %2").arg(path, set.error().message)};
        // The file must not name the setting twice: gCore's name for it goes.
        for (const GcoreName &name : GcoreNames) {
            if (change.first != QLatin1StringView(name.ours)
                || !removePath(root, QString::fromLatin1(name.gcore).split(QLatin1Char('.'))))
                continue;
            // gCore's storage.host meant Redis, and keys without a prefix: once it is gone, the
            // file says so itself, so that the queues stay where they are.
            if (qstrcmp(name.gcore, "storage.host") == 0) {
                if (!nodeAt(root, {QStringLiteral("storage"), QStringLiteral("backend")}).IsDefined())
                    root["storage"]["backend"] = "redis";
                if (!nodeAt(root, {QStringLiteral("storage"), QStringLiteral("prefix")}).IsDefined()
                    && !nodeAt(root, {QStringLiteral("storage"), QStringLiteral("redis"), QStringLiteral("key_prefix")}).IsDefined())
                    root["storage"]["redis"]["key_prefix"] = "";
            }
        }
    }

    YAML::Emitter out;
    out << root;
    QByteArray text;
    for (const QString &line : header.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        text += "# " + line.toUtf8() + '\n';
    text += QByteArray(out.c_str()) + '\n';
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: %2").arg(path, file.errorString())};
    return {};
}

} // namespace Broker
