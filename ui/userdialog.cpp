// SPDX-License-Identifier: GPL-3.0-or-later
#include "userdialog.h"

#include "palette.h"

#include "core/user.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Broker::Ui {

UserDialog::UserDialog(const QStringList &roles, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Add user"));
    auto *form = new QFormLayout(this);
    m_id = new QLineEdit;
    m_id->setObjectName(QStringLiteral("id"));
    m_id->setPlaceholderText(tr("billing_service"));
    form->addRow(tr("User id"), m_id);
    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("name"));
    form->addRow(tr("Name"), m_name);
    auto *roleBox = new QVBoxLayout;
    for (const QString &role : roles) {
        auto *check = new QCheckBox(role);
        check->setObjectName(QStringLiteral("role-") + role);
        connect(check, &QCheckBox::toggled, this, &UserDialog::updateState);
        m_roles.append(check);
        roleBox->addWidget(check);
    }
    form->addRow(tr("Roles"), roleBox);
    m_problem = new QLabel;
    Palette::setTextRole(m_problem, Palette::ProblemText);
    form->addRow(m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    connect(m_id, &QLineEdit::textChanged, this, &UserDialog::updateState);
    updateState();
}

void UserDialog::editExisting(const QString &id, const QString &name, const QStringList &roles)
{
    setWindowTitle(tr("Roles of %1").arg(id));
    m_id->setText(id);
    m_id->setReadOnly(true);
    m_name->setText(name);
    m_name->setReadOnly(true);
    for (QCheckBox *check : std::as_const(m_roles))
        check->setChecked(roles.contains(check->text()));
}

void UserDialog::updateState()
{
    QString problem;
    if (!m_id->text().isEmpty() && !isValidUserId(userId()))
        problem = tr("Up to 64 letters, digits, '_', '.', '-' and '@', starting with a letter or digit");
    else if (roles().isEmpty())
        problem = tr("Choose at least one role");
    m_problem->setText(problem);
    m_ok->setEnabled(problem.isEmpty() && !m_id->text().isEmpty());
}

QString UserDialog::userId() const
{
    return m_id->text().trimmed();
}

QString UserDialog::userName() const
{
    return m_name->text().trimmed();
}

QStringList UserDialog::roles() const
{
    QStringList chosen;
    for (const QCheckBox *check : m_roles) {
        if (check->isChecked())
            chosen.append(check->text());
    }
    return chosen;
}

} // namespace Broker::Ui
