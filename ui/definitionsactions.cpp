// SPDX-License-Identifier: GPL-3.0-or-later
#include "definitionsactions.h"

#include "keydialog.h"

#include "runtime/continuation.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QVBoxLayout>

namespace Broker::Ui {

namespace {

QString valueText(const QJsonValue &value)
{
    if (value.isNull() || value.isUndefined())
        return DefinitionsActions::tr("none");
    if (value.isString())
        return value.toString();
    // Numbers and booleans as JSON writes them: wrap in an array and strip the brackets.
    const QByteArray json = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(json.mid(1, json.size() - 2));
}

void section(QStringList &lines, const QString &title, const QStringList &items)
{
    if (items.isEmpty())
        return;
    lines.append(QStringLiteral("%1 (%2):").arg(title).arg(items.size()));
    for (const QString &item : items)
        lines.append(QStringLiteral("  ") + item);
    lines.append(QString());
}

QStringList refused(const QList<DefinitionsImport::Refused> &items)
{
    QStringList lines;
    for (const DefinitionsImport::Refused &item : items)
        lines.append(QStringLiteral("%1: %2").arg(item.name, item.reason));
    return lines;
}

} // namespace

QString describeImport(const DefinitionsImport &summary)
{
    using A = DefinitionsActions;
    QStringList lines;
    section(lines, A::tr("Queues created"), summary.queuesCreated);
    QStringList conflicts;
    for (const DefinitionsImport::QueueConflict &conflict : summary.queueConflicts) {
        QStringList differences;
        for (const DefinitionsImport::Difference &difference : conflict.differences) {
            differences.append(A::tr("%1 is %2 here, %3 in the file")
                                   .arg(difference.option, valueText(difference.existing),
                                        valueText(difference.requested)));
        }
        conflicts.append(
            QStringLiteral("%1: %2 (%3)").arg(conflict.name, conflict.reason, differences.join(QStringLiteral("; "))));
    }
    section(lines, A::tr("Queues in conflict, left as they are"), conflicts);
    section(lines, A::tr("Queues not created"), refused(summary.queuesFailed));
    section(lines, A::tr("Queues already as in the file"), summary.queuesUnchanged);
    section(lines, A::tr("Roles not imported"), refused(summary.rolesNotImported));
    section(lines, A::tr("Roles present"), summary.rolesPresent);
    QStringList users;
    for (const DefinitionsImport::NewUser &user : summary.usersCreated)
        users.append(user.disabled ? A::tr("%1 (disabled)").arg(user.id) : user.id);
    section(lines, A::tr("Users added, each with a new key shown once"), users);
    section(lines, A::tr("Users not added or changed"), refused(summary.userConflicts));
    section(lines, A::tr("Users already as in the file"), summary.usersUnchanged);
    if (lines.isEmpty())
        return A::tr("The file defines nothing.");
    lines.removeLast();
    return lines.join(QLatin1Char('\n'));
}

DefinitionsActions::DefinitionsActions(BrokerConnection &client, QWidget *window)
    : QObject(window), m_client(client), m_window(window)
{
    setObjectName(QStringLiteral("definitionsActions"));
    m_export = new QAction(tr("Export definitions…"), this);
    m_export->setObjectName(QStringLiteral("exportDefinitions"));
    m_export->setToolTip(tr("Save queues with their options, roles and users (never their keys) as one JSON file"));
    m_import = new QAction(tr("Import definitions…"), this);
    m_import->setObjectName(QStringLiteral("importDefinitions"));
    m_import->setToolTip(tr("Add the queues and users of a definitions file that are missing here; "
                            "nothing that exists is changed"));
    connect(m_export, &QAction::triggered, this, [this] { chooseFile(true); });
    connect(m_import, &QAction::triggered, this, [this] { chooseFile(false); });
}

void DefinitionsActions::chooseFile(bool save)
{
    auto *dialog = new QFileDialog(m_window, save ? tr("Export definitions") : tr("Import definitions"),
                                   QDir::homePath(), tr("Definitions (*.json);;All files (*)"));
    dialog->setObjectName(QStringLiteral("definitionsFile"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(save ? QFileDialog::AcceptSave : QFileDialog::AcceptOpen);
    dialog->setFileMode(save ? QFileDialog::AnyFile : QFileDialog::ExistingFile);
    dialog->setDefaultSuffix(QStringLiteral("json"));
    if (save)
        dialog->selectFile(QStringLiteral("definitions.json"));
    connect(dialog, &QFileDialog::fileSelected, this, [this, save](const QString &path) {
        if (save)
            exportTo(path);
        else
            importFrom(path);
    });
    dialog->open();
}

void DefinitionsActions::exportTo(const QString &path)
{
    m_export->setEnabled(false);
    whenFinished(m_client.exportDefinitions(), this, [this, path](const Result<QJsonObject> &document) {
        m_export->setEnabled(true);
        if (!document) {
            showError(tr("Definitions not exported"), document.error().message);
            return;
        }
        QSaveFile file(path); // the whole file or none: a failed write leaves the old one
        if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(*document).toJson(QJsonDocument::Indented)) < 0
            || !file.commit()) {
            showError(tr("Definitions not exported"),
                      tr("%1 could not be written: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
            return;
        }
        Q_EMIT exported(path);
    });
}

void DefinitionsActions::importFrom(const QString &path)
{
    const QString title = tr("Definitions not imported");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return showError(title, tr("%1 could not be read: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    if (file.size() > MaxFileBytes)
        return showError(title, tr("%1 is too large to be a definitions file").arg(QDir::toNativeSeparators(path)));
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError)
        return showError(title, tr("The file is not JSON: %1 at byte %2").arg(error.errorString()).arg(error.offset));
    if (!json.isObject())
        return showError(title, tr("The file is not a definitions document (a JSON object)"));
    m_import->setEnabled(false);
    whenFinished(m_client.importDefinitions(json.object()), this,
                 [this, title](const Result<DefinitionsImport> &summary) {
                     m_import->setEnabled(true);
                     if (!summary) {
                         const QString detail = summary.error().detail;
                         showError(title,
                                   detail.isEmpty() ? summary.error().message
                                                    : summary.error().message + QStringLiteral(": ") + detail);
                         return;
                     }
                     showSummary(*summary);
                     Q_EMIT imported(*summary);
                 });
}

void DefinitionsActions::showSummary(const DefinitionsImport &summary)
{
    auto *dialog = new QDialog(m_window);
    dialog->setObjectName(QStringLiteral("definitionsSummary"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Definitions imported"));
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(new QLabel(summary.success()
                                     ? tr("Everything missing here was added; nothing that exists was changed.")
                                     : tr("Some queues could not be created; the rest was imported.")));
    auto *text = new QPlainTextEdit(describeImport(summary));
    text->setObjectName(QStringLiteral("summaryText"));
    text->setReadOnly(true);
    text->setMinimumSize(520, 260);
    layout->addWidget(text, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::accept);
    layout->addWidget(buttons);
    dialog->open();
    // On top of the summary: the keys exist only here, so each is shown before anything else.
    for (const DefinitionsImport::NewUser &user : summary.usersCreated) {
        auto *key = new KeyDialog(user.id, user.apiKey,
                                  tr("The import added the user <b>%1</b> with a new key (keys are never "
                                     "exported).")
                                      .arg(user.id.toHtmlEscaped()),
                                  m_window);
        key->setAttribute(Qt::WA_DeleteOnClose);
        key->open();
    }
}

void DefinitionsActions::showError(const QString &title, const QString &message)
{
    auto *box =
        new QMessageBox(QMessageBox::Warning, title, message + QStringLiteral("\n\n") + tr("Nothing was changed."),
                        QMessageBox::Ok, m_window);
    box->setObjectName(QStringLiteral("definitionsError"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    Q_EMIT failed(message);
}

} // namespace Broker::Ui
