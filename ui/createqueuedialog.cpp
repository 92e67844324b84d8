// SPDX-License-Identifier: GPL-3.0-or-later
#include "createqueuedialog.h"

#include "curlcommand.h"

#include "core/queueconfig.h"
#include "core/validation.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace Broker::Ui {

namespace {

QSpinBox *spinBox(qint64 value, qint64 maximum, const QString &suffix)
{
    auto *box = new QSpinBox;
    box->setRange(1, int(qMin<qint64>(maximum, std::numeric_limits<int>::max())));
    box->setValue(int(value));
    box->setSuffix(suffix);
    box->setGroupSeparatorShown(true);
    return box;
}

} // namespace

CreateQueueDialog::CreateQueueDialog(const QStringList &types, const BrokerConfig::Queues &defaults,
                                     const QString &apiUrl, QWidget *parent)
    : QDialog(parent), m_apiUrl(apiUrl)
{
    setWindowTitle(tr("Create queue"));
    auto *form = new QFormLayout(this);
    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("name"));
    m_name->setPlaceholderText(tr("orders, emails.outbound, …"));
    form->addRow(tr("Name"), m_name);
    m_type = new QComboBox;
    m_type->setObjectName(QStringLiteral("type"));
    m_type->addItems(types);
    m_type->setCurrentText(QStringLiteral("list"));
    form->addRow(tr("Type"), m_type);
    m_maxSize = spinBox(defaults.maxQueueSize, QueueLimits::MaxSize, tr(" messages"));
    form->addRow(tr("Max size"), m_maxSize);
    m_ttl = spinBox(defaults.messageTtlSeconds, QueueLimits::MaxTtlSeconds, tr(" s"));
    form->addRow(tr("Message TTL"), m_ttl);
    m_visibility = spinBox(defaults.visibilityTimeoutSeconds, QueueLimits::MaxVisibilityTimeoutSeconds, tr(" s"));
    form->addRow(tr("Visibility timeout"), m_visibility);
    m_maxDeliveries = spinBox(defaults.maxDeliveries, QueueLimits::MaxDeliveries, QString());
    form->addRow(tr("Max deliveries"), m_maxDeliveries);
    auto *deadLetterRow = new QHBoxLayout;
    m_deadLetter = new QCheckBox(tr("Dead-letter queue"));
    m_deadLetterName = new QLineEdit;
    m_deadLetterName->setPlaceholderText(tr("<name>.dlq"));
    deadLetterRow->addWidget(m_deadLetter);
    deadLetterRow->addWidget(m_deadLetterName, 1);
    form->addRow(QString(), deadLetterRow);
    m_problem = new QLabel;
    m_problem->setStyleSheet(QStringLiteral("color: #c62828"));
    form->addRow(m_problem);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_create = buttons->addButton(tr("Create"), QDialogButtonBox::AcceptRole);
    m_create->setDefault(true);
    QPushButton *curl = buttons->addButton(tr("Copy as curl"), QDialogButtonBox::ActionRole);
    connect(curl, &QPushButton::clicked, this, [this] {
        QApplication::clipboard()->setText(curlCommand(QStringLiteral("POST"), m_apiUrl + QStringLiteral("/queues"),
                                                       requestBody()));
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);

    connect(m_name, &QLineEdit::textChanged, this, &CreateQueueDialog::updateState);
    connect(m_deadLetter, &QCheckBox::toggled, this, &CreateQueueDialog::updateState);
    connect(m_deadLetterName, &QLineEdit::textChanged, this, &CreateQueueDialog::updateState);
    updateState();
}

void CreateQueueDialog::updateState()
{
    m_deadLetterName->setEnabled(m_deadLetter->isChecked());
    m_deadLetterName->setPlaceholderText(m_name->text().isEmpty() ? tr("<name>.dlq") : name() + QStringLiteral(".dlq"));
    QString problem;
    if (!m_name->text().isEmpty() && !Validation::queueName(name()).ok())
        problem = tr("Letters, digits, '_', '.' and '-', up to 128, starting with a letter or digit");
    else if (m_deadLetter->isChecked() && !m_deadLetterName->text().isEmpty()
             && !Validation::queueName(m_deadLetterName->text().trimmed()).ok())
        problem = tr("The dead-letter queue name is not a valid queue name");
    m_problem->setText(problem);
    m_create->setEnabled(problem.isEmpty() && !m_name->text().isEmpty());
}

QString CreateQueueDialog::name() const
{
    return m_name->text().trimmed();
}

QJsonObject CreateQueueDialog::options() const
{
    QJsonObject options{{QStringLiteral("type"), m_type->currentText()},
                        {QStringLiteral("max_size"), m_maxSize->value()},
                        {QStringLiteral("ttl"), m_ttl->value()},
                        {QStringLiteral("visibility_timeout"), m_visibility->value()},
                        {QStringLiteral("max_deliveries"), m_maxDeliveries->value()}};
    if (m_deadLetter->isChecked()) {
        const QString target = m_deadLetterName->text().trimmed();
        options.insert(QStringLiteral("dead_letter_queue"), target.isEmpty() ? QJsonValue(true) : QJsonValue(target));
    }
    return options;
}

QByteArray CreateQueueDialog::requestBody() const
{
    return QJsonDocument(QJsonObject{{QStringLiteral("name"), name()}, {QStringLiteral("options"), options()}})
        .toJson(QJsonDocument::Compact);
}

} // namespace Broker::Ui
