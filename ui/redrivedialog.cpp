// SPDX-License-Identifier: GPL-3.0-or-later
#include "redrivedialog.h"

#include "confirm.h"
#include "format.h"
#include "jsontext.h"
#include "linediff.h"
#include "palette.h"

#include "runtime/continuation.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMap>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextCursor>
#include <QTextEdit>
#include <QVBoxLayout>

namespace Broker::Ui {

RedriveDialog::RedriveDialog(BrokerConnection &client, const QString &queue, const QList<Message> &messages, QWidget *parent)
    : QDialog(parent), m_client(client), m_queue(queue), m_messages(messages)
{
    setObjectName(QStringLiteral("redriveDialog"));
    setWindowTitle(tr("Redrive from %1").arg(queue));
    resize(960, 620);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Edit a payload if it needs fixing, then Preview to see what would go back where. "
                                "Nothing moves until you press Redrive."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *splitter = new QSplitter;
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("redriveMessages"));
    m_list->setToolTip(tr("The messages to redrive, with the queue each goes back to"));
    for (const Message &message : std::as_const(m_messages))
        m_list->addItem(tr("%1 → %2").arg(message.id, message.originQueue));
    splitter->addWidget(m_list);

    auto *editorPane = new QWidget;
    auto *editorLayout = new QVBoxLayout(editorPane);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    m_editor = new QPlainTextEdit;
    m_editor->setObjectName(QStringLiteral("redrivePayload"));
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setToolTip(tr("The payload this message goes back with; it must stay valid JSON"));
    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("redriveProblem"));
    m_problem->setWordWrap(true);
    Palette::setTextRole(m_problem, Palette::ProblemText);
    m_diff = new QTextEdit;
    m_diff->setObjectName(QStringLiteral("redriveDiff"));
    m_diff->setReadOnly(true);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_diff->setPlaceholderText(tr("Preview shows here what each message goes back with, changed lines marked"));
    editorLayout->addWidget(m_editor, 1);
    editorLayout->addWidget(m_problem);
    editorLayout->addWidget(m_diff, 1);
    splitter->addWidget(editorPane);
    splitter->setSizes({300, 660});
    layout->addWidget(splitter, 1);

    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("redriveSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_preview = buttons->addButton(tr("&Preview"), QDialogButtonBox::ActionRole);
    m_preview->setToolTip(tr("Ask the broker what a redrive would do (a dry run: nothing moves)"));
    m_redrive = buttons->addButton(tr("&Redrive…"), QDialogButtonBox::ActionRole); // confirms before it closes
    m_redrive->setToolTip(tr("Move the messages back to their origin queues, with the edited payloads"));
    // Enter in the editor makes a new line; neither action may fire from it.
    m_preview->setAutoDefault(false);
    m_redrive->setAutoDefault(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_preview, &QPushButton::clicked, this, &RedriveDialog::preview);
    connect(m_redrive, &QPushButton::clicked, this, &RedriveDialog::redrive);
    layout->addWidget(buttons);

    connect(m_list, &QListWidget::currentRowChanged, this, &RedriveDialog::showMessage);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &RedriveDialog::editorChanged);
    if (!m_messages.isEmpty())
        m_list->setCurrentRow(0);
    updateButtons();
}

void RedriveDialog::showMessage(int row)
{
    m_shown = -1; // the text set below is not an edit
    if (row < 0 || row >= m_messages.size()) {
        m_editor->clear();
        return;
    }
    const Message &message = m_messages.at(row);
    m_editor->setPlainText(m_texts.value(message.id, prettyJson(message.data)));
    m_shown = row;
    m_problem->setText(m_problems.value(message.id));
}

void RedriveDialog::editorChanged()
{
    if (m_shown < 0)
        return;
    const QString id = m_messages.at(m_shown).id;
    const QString text = m_editor->toPlainText();
    m_texts.insert(id, text);
    QString problem;
    if (!compactJson(text, &problem))
        m_problems.insert(id, tr("Not valid JSON: %1").arg(problem));
    else
        m_problems.remove(id);
    m_problem->setText(m_problems.value(id));
    // A preview shows what the payloads were when it ran; after an edit it would mislead.
    if (!m_previewText.isEmpty()) {
        m_diff->clear();
        m_previewText.clear();
    }
    updateButtons();
}

void RedriveDialog::updateButtons()
{
    const bool ready = !m_busy && !m_messages.isEmpty() && m_problems.isEmpty();
    m_preview->setEnabled(ready);
    m_redrive->setEnabled(ready);
    if (!m_problems.isEmpty())
        m_summary->setText(tr("%n payload(s) are not valid JSON; fix them to preview or redrive", nullptr,
                              int(m_problems.size())));
    else if (m_previewText.isEmpty() && !m_busy)
        m_summary->setText(tr("%n message(s): %1", nullptr, int(m_messages.size())).arg(destinations()));
}

QHash<QString, QByteArray> RedriveDialog::edits() const
{
    QHash<QString, QByteArray> edits;
    for (const Message &message : m_messages) {
        const auto text = m_texts.constFind(message.id);
        if (text == m_texts.cend())
            continue;
        QString problem;
        const std::optional<QByteArray> compact = compactJson(*text, &problem);
        // Unchanged up to whitespace: no edit, so the payload goes back exactly as it was sent.
        if (compact && *compact != compactJsonText(message.data))
            edits.insert(message.id, *compact);
    }
    return edits;
}

RedriveRequest RedriveDialog::request(bool dryRun) const
{
    RedriveRequest request;
    for (const Message &message : m_messages)
        request.ids.append(message.id);
    request.edits = edits();
    request.dryRun = dryRun;
    request.user = BrokerConnection::desktopUser();
    return request;
}

QString RedriveDialog::destinations() const
{
    QMap<QString, int> counts; // sorted by queue name
    for (const Message &message : m_messages)
        ++counts[message.originQueue];
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts.append(tr("%1 to %2").arg(formatCount(it.value()), it.key()));
    return parts.join(QStringLiteral(", "));
}

void RedriveDialog::preview()
{
    if (!m_problems.isEmpty() || m_busy)
        return;
    m_busy = true;
    updateButtons();
    whenFinished(m_client.redrive(m_queue, request(true)), this, [this](const Result<RedriveResult> &result) {
        m_busy = false;
        updateButtons();
        if (!result) {
            m_summary->setText(tr("Preview failed: %1").arg(result.error().message));
        } else {
            showPreview(*result);
        }
        Q_EMIT previewShown();
    });
}

void RedriveDialog::showPreview(const RedriveResult &result)
{
    m_diff->clear();
    m_previewText.clear();
    QTextCursor cursor(m_diff->document());
    QTextCharFormat plain;
    plain.setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    QTextCharFormat heading = plain;
    heading.setFontWeight(QFont::Bold);
    bool first = true;
    auto addLine = [&](const QString &text, const QTextCharFormat &format, std::optional<Palette::Role> background) {
        QTextBlockFormat block;
        if (background)
            block.setBackground(Palette::color(*background));
        if (first)
            cursor.setBlockFormat(block);
        else
            cursor.insertBlock(block);
        first = false;
        cursor.insertText(text, format);
        m_previewText += text + QLatin1Char('\n');
    };
    qint64 changed = 0;
    for (const RedriveItem &item : result.messages) {
        const QList<DiffLine> diff = diffLines(prettyJson(item.before).split(QLatin1Char('\n')),
                                               prettyJson(item.after).split(QLatin1Char('\n')));
        const bool edited = hasChanges(diff);
        changed += edited ? 1 : 0;
        addLine(tr("%1 → %2%3").arg(item.id, item.origin, edited ? tr(" (edited)") : tr(" (unchanged)")), heading,
                std::nullopt);
        for (const DiffLine &line : diff) {
            switch (line.kind) {
            case DiffLine::Kind::Same: addLine(QStringLiteral("  ") + line.text, plain, std::nullopt); break;
            case DiffLine::Kind::Removed:
                addLine(QStringLiteral("- ") + line.text, plain, Palette::DiffRemovedBackground);
                break;
            case DiffLine::Kind::Added:
                addLine(QStringLiteral("+ ") + line.text, plain, Palette::DiffAddedBackground);
                break;
            }
        }
        addLine(QString(), plain, std::nullopt);
    }
    QString summary = tr("Would move %1 message(s), %2 of them edited; nothing has moved yet.")
                          .arg(formatCount(result.moved), formatCount(changed));
    const qint64 staying = qint64(m_messages.size()) - result.moved - result.missing.size();
    if (!result.missing.isEmpty())
        summary += QLatin1Char(' ') + tr("%n message(s) are no longer dead-lettered here.", nullptr, int(result.missing.size()));
    if (staying > 0)
        summary += QLatin1Char(' ') + tr("%n message(s) would stay: their origin queue is gone.", nullptr, int(staying));
    m_summary->setText(summary);
    m_diff->moveCursor(QTextCursor::Start);
}

void RedriveDialog::redrive()
{
    if (!m_problems.isEmpty() || m_busy)
        return;
    const qsizetype edited = edits().size();
    QString question = tr("%n message(s) will go back to their origin queues (%1)", nullptr, int(m_messages.size()))
                           .arg(destinations());
    if (edited > 0)
        question += tr(", %n of them with an edited payload", nullptr, int(edited));
    question += tr(". They leave %1.").arg(m_queue);
    confirmAction(this, tr("Redrive"), question, [this] {
        m_busy = true;
        updateButtons();
        whenFinished(m_client.redrive(m_queue, request(false)), this, [this](const Result<RedriveResult> &result) {
            m_busy = false;
            updateButtons();
            if (!result) {
                m_summary->setText(tr("Redrive failed: %1").arg(result.error().message));
                Q_EMIT redriven(0, {}, result.error().message);
                return;
            }
            Q_EMIT redriven(result->moved, result->missing, QString());
            accept();
        });
    });
}

QString RedriveDialog::problemText() const
{
    return m_problem->text();
}

QString RedriveDialog::previewText() const
{
    return m_previewText;
}

} // namespace Broker::Ui
