// SPDX-License-Identifier: GPL-3.0-or-later
#include "publishdialog.h"

#include "copyas.h"
#include "jsontext.h"
#include "palette.h"

#include "core/queueconfig.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QUrl>

namespace Broker::Ui {

PublishDialog::PublishDialog(const QString &queue, const QString &queueType, const QString &apiUrl, QWidget *parent)
    : QDialog(parent), m_queue(queue), m_apiUrl(apiUrl)
{
    setWindowTitle(tr("Publish to %1").arg(queue));
    resize(520, 380);
    auto *form = new QFormLayout(this);
    m_editor = new QPlainTextEdit;
    m_editor->setObjectName(QStringLiteral("json"));
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlainText(QStringLiteral("{\n  \"hello\": \"world\"\n}"));
    m_editor->setToolTip(tr("One JSON value: an object, array, string or number (Ctrl+Enter sends)"));
    form->addRow(tr("&Message (JSON)"), m_editor);
    m_priority = new QSpinBox(this); // owned even when the type does not offer it
    m_priority->setObjectName(QStringLiteral("priority"));
    m_priority->setRange(-1000, 1000);
    m_priority->setToolTip(tr("Higher priorities are delivered first"));
    m_delay = new QSpinBox(this);
    m_delay->setObjectName(QStringLiteral("delay"));
    m_delay->setRange(0, int(QueueLimits::MaxDelaySeconds));
    m_delay->setSuffix(tr(" s"));
    m_delay->setToolTip(tr("Deliver no sooner than this many seconds from now"));
    // Options the type ignores or refuses are not offered (a stream refuses a delay).
    if (queueType == QLatin1StringView("priority"))
        form->addRow(tr("&Priority"), m_priority);
    else
        m_priority->hide();
    if (queueType != QLatin1StringView("stream"))
        form->addRow(tr("&Delay"), m_delay);
    else
        m_delay->hide();
    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("problem"));
    m_problem->setWordWrap(true);
    Palette::setTextRole(m_problem, Palette::ProblemText);
    form->addRow(m_problem);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    form->addRow(buttons);
    m_send = buttons->addButton(tr("Send"), QDialogButtonBox::AcceptRole);
    m_send->setObjectName(QStringLiteral("send"));
    m_send->setToolTip(tr("Publish the message (Ctrl+Enter)"));
    m_send->setDefault(true);
    buttons->button(QDialogButtonBox::Cancel)->setAutoDefault(false);
    buttons->button(QDialogButtonBox::Cancel)->setToolTip(tr("Close without publishing (Esc)"));
    QPushButton *copy = buttons->addButton(tr("C&opy as"), QDialogButtonBox::ActionRole);
    copy->setAutoDefault(false);
    copy->setToolTip(tr("Copy this request as curl, Python or C++"));
    copy->setMenu(copyAsMenu(copy, this, [this] {
        return HttpRequestSpec{QStringLiteral("POST"),
                               m_apiUrl + QStringLiteral("/messages/") + QString::fromUtf8(QUrl::toPercentEncoding(m_queue)),
                               requestBody()};
    }));
    connect(buttons, &QDialogButtonBox::accepted, this, &PublishDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // In the editor Enter is a new line; Ctrl+Enter sends from anywhere in the dialog (the
    // editor itself would take it as a new line, hence the filter).
    for (const QKeySequence &keys : {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)})
        connect(new QShortcut(keys, this), &QShortcut::activated, this, &PublishDialog::accept);
    m_editor->installEventFilter(this);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &PublishDialog::validate);
    validate();
}

bool PublishDialog::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_editor && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) && (key->modifiers() & Qt::ControlModifier)) {
            accept();
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

bool PublishDialog::offersPriority() const
{
    return !m_priority->isHidden();
}

bool PublishDialog::offersDelay() const
{
    return !m_delay->isHidden();
}

void PublishDialog::setText(const QString &json)
{
    m_editor->setPlainText(json);
}

void PublishDialog::validate()
{
    QString problem;
    const std::optional<QByteArray> compact = compactJson(m_editor->toPlainText(), &problem);
    m_compact = compact.value_or(QByteArray());
    m_problem->setText(m_busy ? tr("Sending…") : problem);
    m_send->setEnabled(!m_busy && compact.has_value());
}

void PublishDialog::accept()
{
    validate();
    if (!m_send->isEnabled())
        return;
    m_busy = true;
    m_editor->setReadOnly(true);
    validate();
    Q_EMIT publishRequested(message());
}

void PublishDialog::finish(const QString &error)
{
    m_busy = false;
    m_editor->setReadOnly(false);
    validate();
    if (error.isEmpty()) {
        done(Accepted);
        return;
    }
    m_problem->setText(error);
    m_editor->setFocus();
}

NewMessage PublishDialog::message() const
{
    NewMessage message;
    message.data = m_compact;
    message.priority = offersPriority() ? m_priority->value() : 0;
    message.delayMs = offersDelay() ? qint64(m_delay->value()) * 1000 : 0;
    return message;
}

QByteArray PublishDialog::requestBody() const
{
    const NewMessage next = message();
    QByteArray body = "{\"message\":" + (m_compact.isEmpty() ? QByteArray("null") : m_compact);
    if (next.priority != 0)
        body += ",\"priority\":" + QByteArray::number(next.priority);
    if (next.delayMs != 0)
        body += ",\"delay\":" + QByteArray::number(next.delayMs / 1000);
    return body + '}';
}

} // namespace Broker::Ui
