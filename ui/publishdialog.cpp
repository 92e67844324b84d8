// SPDX-License-Identifier: GPL-3.0-or-later
#include "publishdialog.h"

#include "curlcommand.h"
#include "jsontext.h"

#include "core/queueconfig.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QUrl>

namespace Broker::Ui {

PublishDialog::PublishDialog(const QString &queue, const QString &apiUrl, QWidget *parent)
    : QDialog(parent), m_queue(queue), m_apiUrl(apiUrl)
{
    setWindowTitle(tr("Publish to %1").arg(queue));
    resize(520, 380);
    auto *form = new QFormLayout(this);
    m_editor = new QPlainTextEdit;
    m_editor->setObjectName(QStringLiteral("json"));
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlainText(QStringLiteral("{\n  \"hello\": \"world\"\n}"));
    form->addRow(tr("Message (JSON)"), m_editor);
    m_priority = new QSpinBox;
    m_priority->setRange(-1000, 1000);
    form->addRow(tr("Priority"), m_priority);
    m_delay = new QSpinBox;
    m_delay->setRange(0, int(QueueLimits::MaxDelaySeconds));
    m_delay->setSuffix(tr(" s"));
    form->addRow(tr("Delay"), m_delay);
    m_problem = new QLabel;
    m_problem->setStyleSheet(QStringLiteral("color: #c62828"));
    form->addRow(m_problem);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_send = buttons->addButton(tr("Send"), QDialogButtonBox::AcceptRole);
    QPushButton *curl = buttons->addButton(tr("Copy as curl"), QDialogButtonBox::ActionRole);
    connect(curl, &QPushButton::clicked, this, [this] {
        const QString url = m_apiUrl + QStringLiteral("/messages/") + QString::fromUtf8(QUrl::toPercentEncoding(m_queue));
        QApplication::clipboard()->setText(curlCommand(QStringLiteral("POST"), url, requestBody()));
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &PublishDialog::validate);
    validate();
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
    m_problem->setText(problem);
    m_send->setEnabled(compact.has_value());
}

NewMessage PublishDialog::message() const
{
    NewMessage message;
    message.data = m_compact;
    message.priority = m_priority->value();
    message.delayMs = qint64(m_delay->value()) * 1000;
    return message;
}

QByteArray PublishDialog::requestBody() const
{
    QByteArray body = "{\"message\":" + (m_compact.isEmpty() ? QByteArray("null") : m_compact);
    if (m_priority->value() != 0)
        body += ",\"priority\":" + QByteArray::number(m_priority->value());
    if (m_delay->value() != 0)
        body += ",\"delay\":" + QByteArray::number(m_delay->value());
    return body + '}';
}

} // namespace Broker::Ui
