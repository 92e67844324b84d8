// SPDX-License-Identifier: GPL-3.0-or-later
#include "userspage.h"

#include "confirm.h"
#include "keydialog.h"
#include "messagebar.h"
#include "userdialog.h"
#include "usertablemodel.h"


#include "runtime/continuation.h"
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace Broker::Ui {

UsersPage::UsersPage(BrokerClient &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    auto *layout = new QVBoxLayout(this);
    m_bar = new MessageBar;
    layout->addWidget(m_bar);
    auto *toolbar = new QHBoxLayout;
    m_file = new QLabel;
    m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    toolbar->addWidget(m_file, 1);
    auto addButton = [&](const QString &text, void (UsersPage::*action)(), bool needsUser) {
        auto *button = new QPushButton(text);
        connect(button, &QPushButton::clicked, this, action);
        toolbar->addWidget(button);
        if (needsUser)
            m_userActions.append(button);
        return button;
    };
    addButton(tr("Add user…"), &UsersPage::addUser, false);
    addButton(tr("Rotate key…"), &UsersPage::rotateKey, true);
    addButton(tr("Edit roles…"), &UsersPage::editRoles, true);
    m_disable = addButton(tr("Disable"), &UsersPage::toggleDisabled, true);
    addButton(tr("Delete…"), &UsersPage::deleteUser, true);
    layout->addLayout(toolbar);

    m_model = new UserTableModel(this);
    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("users"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(UserTableModel::Roles, QHeaderView::Stretch);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &UsersPage::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &UsersPage::updateActions);
    layout->addWidget(m_view, 1);
    updateActions();
}

void UsersPage::showStart(const StartReport &report)
{
    m_roles = report.roles;
    m_file->setText(tr("Users file: %1").arg(report.usersFile));
}

void UsersPage::showDirectory(const HostDirectory &directory)
{
    m_model->setRows(directory.users);
    updateActions();
}

QString UsersPage::selectedUser() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? current.data(UserTableModel::IdRole).toString() : QString();
}

void UsersPage::updateActions()
{
    const int row = m_view->currentIndex().row();
    const bool selected = row >= 0 && row < m_model->rowCount();
    for (QPushButton *button : std::as_const(m_userActions))
        button->setEnabled(selected);
    m_disable->setText(selected && m_model->rowAt(row).disabled ? tr("Enable") : tr("Disable"));
}

void UsersPage::showKey(const QString &userId, const QString &apiKey, const QString &intro)
{
    auto *dialog = new KeyDialog(userId, apiKey, intro, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void UsersPage::report(const Result<void> &result, const QString &done)
{
    if (result)
        m_bar->showInfo(done);
    else
        m_bar->showError(result.error().message);
}

void UsersPage::addUser()
{
    auto *dialog = new UserDialog(m_roles, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QString id = dialog->userId();
        whenFinished(m_client.addUser(id, dialog->userName(), dialog->roles()), this, [this, id](Result<IssuedKey> added) {
            if (!added) {
                m_bar->showError(tr("Could not add %1: %2").arg(id, added.error().message));
                return;
            }
            m_bar->showInfo(tr("User %1 added").arg(id));
            showKey(id, added->apiKey, tr("User <b>%1</b> was added with this API key.").arg(id.toHtmlEscaped()));
        });
    });
    dialog->open();
}

void UsersPage::rotateKey()
{
    const QString id = selectedUser();
    confirmAction(this, tr("Rotate key"), tr("Give %1 a new API key? The current key stops working at once.").arg(id), [this, id] {
        whenFinished(m_client.rotateKey(id), this, [this, id](Result<IssuedKey> rotated) {
            if (!rotated) {
                m_bar->showError(tr("Could not rotate the key of %1: %2").arg(id, rotated.error().message));
                return;
            }
            showKey(id, rotated->apiKey, tr("The new API key of <b>%1</b>:").arg(id.toHtmlEscaped()));
        });
    });
}

void UsersPage::editRoles()
{
    const int row = m_view->currentIndex().row();
    if (row < 0)
        return;
    const User user = m_model->rowAt(row);
    auto *dialog = new UserDialog(m_roles, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->editExisting(user.id, user.name, user.roles);
    connect(dialog, &QDialog::accepted, this, [this, dialog, id = user.id] {
        whenFinished(m_client.setRoles(id, dialog->roles()), this, [this, id](Result<void> set) {
            report(set, tr("Roles of %1 changed").arg(id));
        });
    });
    dialog->open();
}

void UsersPage::toggleDisabled()
{
    const int row = m_view->currentIndex().row();
    if (row < 0)
        return;
    const User &user = m_model->rowAt(row);
    const bool disable = !user.disabled;
    whenFinished(m_client.setDisabled(user.id, disable), this, [this, id = user.id, disable](Result<void> set) {
        report(set, disable ? tr("%1 disabled: its key is refused").arg(id) : tr("%1 enabled").arg(id));
    });
}

void UsersPage::deleteUser()
{
    const QString id = selectedUser();
    confirmAction(this, tr("Delete"), tr("Delete %1? Its API key stops working at once.").arg(id), [this, id] {
        whenFinished(m_client.removeUser(id), this, [this, id](Result<void> removed) { report(removed, tr("User %1 deleted").arg(id)); });
    });
}

} // namespace Broker::Ui
