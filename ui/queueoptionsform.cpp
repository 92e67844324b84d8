// SPDX-License-Identifier: GPL-3.0-or-later
#include "queueoptionsform.h"

#include "core/queuename.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>

#include <limits>

namespace Broker::Ui {

namespace {

QSpinBox *boundedField(qint64 maximum, const QString &suffix)
{
    auto *field = new QSpinBox;
    field->setRange(1, int(qMin<qint64>(maximum, std::numeric_limits<int>::max())));
    field->setSuffix(suffix);
    field->setGroupSeparatorShown(true);
    field->setAccelerated(true);
    return field;
}

} // namespace

QueueOptionsForm::QueueOptionsForm(QWidget *parent) : QGroupBox(tr("Options"), parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_type = new QLabel;
    m_type->setToolTip(tr("A queue's type is fixed when it is created: its messages are kept in the structure of that type."));
    m_maxSize = boundedField(QueueLimits::MaxSize, tr(" messages"));
    m_maxSize->setObjectName(QStringLiteral("maxSize"));
    m_maxSize->setToolTip(tr("Ready, delayed and in-flight messages together; a publish beyond is refused (429)."));
    m_ttl = boundedField(QueueLimits::MaxTtlSeconds, tr(" s"));
    m_ttl->setObjectName(QStringLiteral("ttl"));
    m_ttl->setToolTip(tr("Message lifetime from publish, in seconds; expired messages are never delivered."));
    m_visibility = boundedField(QueueLimits::MaxVisibilityTimeoutSeconds, tr(" s"));
    m_visibility->setObjectName(QStringLiteral("visibilityTimeout"));
    m_visibility->setToolTip(tr("Default lease length for consumes with acknowledge=false, in seconds."));
    m_maxDeliveries = boundedField(QueueLimits::MaxDeliveries, {});
    m_maxDeliveries->setObjectName(QStringLiteral("maxDeliveries"));
    m_maxDeliveries->setToolTip(tr("Deliveries before a message is dead-lettered (or dropped without a dead-letter queue)."));
    m_deadLetterQueue = new QLineEdit;
    m_deadLetterQueue->setObjectName(QStringLiteral("deadLetterQueue"));
    m_deadLetterQueue->setPlaceholderText(tr("none: such messages are dropped and counted"));
    m_deadLetterQueue->setClearButtonEnabled(true);
    m_partitions = boundedField(QueueLimits::MaxPartitions, {});
    m_partitions->setObjectName(QStringLiteral("partitions"));
    m_partitions->setToolTip(tr("Sub-queues the queue is stored as; messages with one key keep their order. "
                                "Partitions can be added, never removed: the field starts at the queue's count."));
    form->addRow(tr("Type:"), m_type);
    form->addRow(tr("&Max size:"), m_maxSize);
    form->addRow(tr("&TTL:"), m_ttl);
    form->addRow(tr("&Visibility timeout:"), m_visibility);
    form->addRow(tr("Max &deliveries:"), m_maxDeliveries);
    form->addRow(tr("Dead-letter &queue:"), m_deadLetterQueue);
    form->addRow(tr("&Partitions:"), m_partitions);
    layout->addLayout(form);

    auto *errorRow = new QHBoxLayout;
    m_errorIcon = new QLabel;
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize);
    m_errorIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize, iconSize));
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("optionsError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errorRow->addWidget(m_errorIcon, 0, Qt::AlignTop);
    errorRow->addWidget(m_error, 1);
    layout->addLayout(errorRow);
    showError({});

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    m_revert = new QPushButton(tr("&Revert"));
    m_revert->setObjectName(QStringLiteral("revert"));
    m_revert->setToolTip(tr("Show the queue's options as they are, dropping what was typed"));
    m_save = new QPushButton(tr("&Save"));
    m_save->setObjectName(QStringLiteral("save"));
    m_save->setToolTip(tr("Change the options that differ (Enter in a field does the same)"));
    buttons->addWidget(m_revert);
    buttons->addWidget(m_save);
    layout->addLayout(buttons);

    connect(m_save, &QPushButton::clicked, this, &QueueOptionsForm::save);
    connect(m_revert, &QPushButton::clicked, this, &QueueOptionsForm::revert);
    for (QSpinBox *field : {m_maxSize, m_ttl, m_visibility, m_maxDeliveries, m_partitions})
        connect(field, &QSpinBox::valueChanged, this, &QueueOptionsForm::updateButtons);
    connect(m_deadLetterQueue, &QLineEdit::textChanged, this, &QueueOptionsForm::updateButtons);
    updateButtons();
}

void QueueOptionsForm::showConfig(const QString &queue, const QueueConfig &config)
{
    const bool otherQueue = queue != m_queue;
    if (!otherQueue && config == m_config)
        return;
    const bool keepEdits = !otherQueue && isEdited();
    m_queue = queue;
    m_config = config;
    m_type->setText(config.type);
    if (otherQueue) {
        m_saving = false;
        showError({});
    }
    if (!keepEdits)
        revert();
    updateButtons();
}

void QueueOptionsForm::revert()
{
    const QSignalBlocker blockers[] = {QSignalBlocker(m_maxSize), QSignalBlocker(m_ttl), QSignalBlocker(m_visibility),
                                       QSignalBlocker(m_maxDeliveries), QSignalBlocker(m_deadLetterQueue),
                                       QSignalBlocker(m_partitions)};
    m_maxSize->setValue(int(m_config.maxSize));
    m_ttl->setValue(int(qMin<qint64>(m_config.ttlSeconds, m_ttl->maximum())));
    m_visibility->setValue(int(m_config.visibilityTimeoutSeconds));
    m_maxDeliveries->setValue(m_config.maxDeliveries);
    m_deadLetterQueue->setText(m_config.deadLetterQueue);
    m_partitions->setMinimum(m_config.partitions); // they only grow
    m_partitions->setValue(m_config.partitions);
    showError({});
    updateButtons();
}

QJsonObject QueueOptionsForm::changedOptions() const
{
    QJsonObject options;
    if (m_maxSize->value() != m_config.maxSize)
        options.insert(u"max_size", m_maxSize->value());
    if (m_ttl->value() != m_config.ttlSeconds)
        options.insert(u"ttl", m_ttl->value());
    if (m_visibility->value() != m_config.visibilityTimeoutSeconds)
        options.insert(u"visibility_timeout", m_visibility->value());
    if (m_maxDeliveries->value() != m_config.maxDeliveries)
        options.insert(u"max_deliveries", m_maxDeliveries->value());
    const QString deadLetterQueue = m_deadLetterQueue->text().trimmed();
    if (deadLetterQueue != m_config.deadLetterQueue)
        options.insert(u"dead_letter_queue", deadLetterQueue);
    if (m_partitions->value() != m_config.partitions)
        options.insert(u"partitions", m_partitions->value());
    return options;
}

bool QueueOptionsForm::isEdited() const
{
    return !changedOptions().isEmpty();
}

void QueueOptionsForm::save()
{
    if (m_queue.isEmpty() || m_saving || !m_saveAllowed)
        return;
    const QJsonObject options = changedOptions();
    if (options.isEmpty())
        return;
    // The checks the engine makes anyway, made here first so that the answer comes at once.
    const QString deadLetterQueue = options.value(u"dead_letter_queue").toString();
    if (!deadLetterQueue.isEmpty() && !QueueName::isValid(deadLetterQueue))
        return showError(tr("The dead-letter queue “%1” is not a valid queue name").arg(deadLetterQueue));
    if (deadLetterQueue == m_queue)
        return showError(tr("A queue cannot be its own dead-letter queue"));
    m_saving = true;
    showError({});
    updateButtons();
    Q_EMIT saveRequested(options);
}

void QueueOptionsForm::showSaveResult(const QString &error)
{
    m_saving = false;
    showError(error);
    updateButtons();
}

void QueueOptionsForm::setSaveEnabled(bool enabled, const QString &why)
{
    m_saveAllowed = enabled;
    m_save->setToolTip(enabled ? tr("Change the options that differ (Enter in a field does the same)") : why);
    updateButtons();
}

void QueueOptionsForm::showError(const QString &error)
{
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    m_errorIcon->setVisible(!error.isEmpty());
}

QString QueueOptionsForm::errorText() const
{
    return m_error->text();
}

void QueueOptionsForm::updateButtons()
{
    const bool edited = isEdited();
    m_save->setEnabled(edited && !m_saving && m_saveAllowed && !m_queue.isEmpty());
    m_revert->setEnabled(edited && !m_saving);
}

void QueueOptionsForm::keyPressEvent(QKeyEvent *event)
{
    // Fields pass Enter on (spin boxes and line edits ignore it): it saves, as in a dialog.
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        save();
        event->accept();
        return;
    }
    QGroupBox::keyPressEvent(event);
}

} // namespace Broker::Ui
