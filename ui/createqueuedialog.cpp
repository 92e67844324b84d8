// SPDX-License-Identifier: GPL-3.0-or-later
#include "createqueuedialog.h"

#include "copyas.h"
#include "palette.h"

#include "core/queueconfig.h"
#include "core/validation.h"

#include <QCheckBox>
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

QSpinBox *spinBox(qint64 value, qint64 maximum, const QString &suffix, const QString &tip)
{
    auto *box = new QSpinBox;
    box->setRange(1, int(qMin<qint64>(maximum, std::numeric_limits<int>::max())));
    box->setValue(int(value));
    box->setSuffix(suffix);
    box->setGroupSeparatorShown(true);
    box->setToolTip(tip);
    return box;
}

} // namespace

CreateQueueDialog::CreateQueueDialog(const QStringList &types, const BrokerConfig::Queues &defaults,
                                     const QString &apiUrl, QueueExists queueExists, QWidget *parent)
    : QDialog(parent), m_apiUrl(apiUrl), m_queueExists(std::move(queueExists))
{
    setWindowTitle(tr("Create queue"));
    auto *form = new QFormLayout(this);
    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("name"));
    m_name->setPlaceholderText(tr("orders, emails.outbound, …"));
    m_name->setToolTip(tr("Letters, digits, '_', '.' and '-', up to 128, starting with a letter or digit"));
    form->addRow(tr("&Name"), m_name);
    m_type = new QComboBox;
    m_type->setObjectName(QStringLiteral("type"));
    m_type->addItems(types);
    m_type->setCurrentText(QStringLiteral("list"));
    m_type->setToolTip(tr("list: first in, first out · priority: higher priority first · "
                          "stream: an append-only log read by consumer groups"));
    form->addRow(tr("&Type"), m_type);
    m_maxSize = spinBox(defaults.maxQueueSize, QueueLimits::MaxSize, tr(" messages"),
                        tr("Ready, delayed and in-flight messages together; a publish beyond is refused"));
    form->addRow(tr("Max &size"), m_maxSize);
    m_ttl = spinBox(defaults.messageTtlSeconds, QueueLimits::MaxTtlSeconds, tr(" s"),
                    tr("How long a message lives after it was published; expired messages are never delivered"));
    form->addRow(tr("Message TT&L"), m_ttl);
    m_visibility = spinBox(defaults.visibilityTimeoutSeconds, QueueLimits::MaxVisibilityTimeoutSeconds, tr(" s"),
                           tr("How long a consumer that did not acknowledge yet holds a message before it is redelivered"));
    form->addRow(tr("&Visibility timeout"), m_visibility);
    m_maxDeliveries = spinBox(defaults.maxDeliveries, QueueLimits::MaxDeliveries, QString(),
                              tr("Deliveries before a message goes to the dead-letter queue (or is dropped)"));
    form->addRow(tr("Max &deliveries"), m_maxDeliveries);
    m_partitions = spinBox(1, QueueLimits::MaxPartitions, QString(),
                           tr("Sub-queues the queue is stored as: on a Redis Cluster they spread over its primaries. "
                              "Messages published with one key keep their order. Partitions can be added later, never removed."));
    m_partitions->setObjectName(QStringLiteral("partitions"));
    form->addRow(tr("&Partitions"), m_partitions);
    auto *deadLetterRow = new QHBoxLayout;
    m_deadLetter = new QCheckBox(tr("Dead-letter &queue"));
    m_deadLetter->setObjectName(QStringLiteral("deadLetter"));
    m_deadLetter->setToolTip(tr("Keep messages that ran out of deliveries in another queue"));
    m_deadLetterName = new QLineEdit;
    m_deadLetterName->setObjectName(QStringLiteral("deadLetterName"));
    m_deadLetterName->setPlaceholderText(tr("<name>.dlq"));
    deadLetterRow->addWidget(m_deadLetter);
    deadLetterRow->addWidget(m_deadLetterName, 1);
    form->addRow(QString(), deadLetterRow);
    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("problem"));
    m_problem->setWordWrap(true);
    Palette::setTextRole(m_problem, Palette::ProblemText);
    form->addRow(m_problem);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    form->addRow(buttons);
    m_create = buttons->addButton(tr("Create"), QDialogButtonBox::AcceptRole);
    m_create->setObjectName(QStringLiteral("create"));
    m_create->setToolTip(tr("Create the queue (Enter)"));
    // Only now, inside the dialog, does the default button register with it; set earlier, the
    // dialog would pick the first auto-default button (Cancel) for Enter.
    m_create->setDefault(true);
    buttons->button(QDialogButtonBox::Cancel)->setAutoDefault(false);
    buttons->button(QDialogButtonBox::Cancel)->setToolTip(tr("Close without creating anything (Esc)"));
    QPushButton *copy = buttons->addButton(tr("C&opy as"), QDialogButtonBox::ActionRole);
    copy->setAutoDefault(false);
    copy->setToolTip(tr("Copy this request as curl, Python or C++"));
    copy->setMenu(copyAsMenu(copy, this, [this] {
        return HttpRequestSpec{QStringLiteral("POST"), m_apiUrl + QStringLiteral("/queues"), requestBody()};
    }));
    connect(buttons, &QDialogButtonBox::accepted, this, &CreateQueueDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    for (QLineEdit *edit : {m_name, m_deadLetterName})
        connect(edit, &QLineEdit::textChanged, this, [this] { m_brokerError.clear(); updateState(); });
    connect(m_deadLetter, &QCheckBox::toggled, this, [this] { m_brokerError.clear(); updateState(); });
    connect(m_type, &QComboBox::currentIndexChanged, this, [this] { m_brokerError.clear(); updateState(); });
    updateState();
}

QString CreateQueueDialog::problem() const
{
    if (!m_brokerError.isEmpty())
        return m_brokerError;
    if (!m_name->text().isEmpty() && !Validation::queueName(name()).ok())
        return tr("Letters, digits, '_', '.' and '-', up to 128, starting with a letter or digit");
    if (!m_name->text().isEmpty() && m_queueExists && m_queueExists(name()))
        return tr("A queue named %1 exists already").arg(name());
    if (m_deadLetter->isChecked()) {
        const QString target = m_deadLetterName->text().trimmed();
        if (!target.isEmpty() && !Validation::queueName(target).ok())
            return tr("The dead-letter queue name is not a valid queue name");
        if (target == name() && !target.isEmpty())
            return tr("A queue cannot be its own dead-letter queue");
    }
    return {};
}

void CreateQueueDialog::updateState()
{
    m_deadLetterName->setEnabled(m_deadLetter->isChecked() && !m_busy);
    m_deadLetterName->setPlaceholderText(m_name->text().isEmpty() ? tr("<name>.dlq") : name() + QStringLiteral(".dlq"));
    const QString current = problem();
    m_problem->setText(m_busy ? tr("Creating…") : current);
    m_create->setEnabled(!m_busy && current.isEmpty() && !m_name->text().trimmed().isEmpty());
}

void CreateQueueDialog::setBusy(bool busy)
{
    m_busy = busy;
    for (QWidget *input : std::initializer_list<QWidget *>{m_name, m_type, m_maxSize, m_ttl, m_visibility, m_maxDeliveries, m_partitions, m_deadLetter})
        input->setEnabled(!busy);
    updateState();
}

void CreateQueueDialog::accept()
{
    updateState();
    if (m_busy || !m_create->isEnabled())
        return; // the problem line says why; the input stays
    const Result<QueueConfig> config = QueueConfig::fromOptions(name(), options(), QueueDefaults{});
    if (!config) {
        m_brokerError = config.error().message;
        updateState();
        return;
    }
    setBusy(true);
    Q_EMIT createRequested(name(), options());
}

void CreateQueueDialog::finish(const QString &error)
{
    setBusy(false);
    if (error.isEmpty()) {
        done(Accepted);
        return;
    }
    m_brokerError = error;
    updateState();
    m_name->setFocus();
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
    if (m_partitions->value() > 1) // left out otherwise, so that the request reads as gCore's
        options.insert(QStringLiteral("partitions"), m_partitions->value());
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
