// SPDX-License-Identifier: GPL-3.0-or-later
#include "userspage.h"

#include "rowtable.h"
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

#include <algorithm>

namespace Broker::Ui {

UsersPage::UsersPage(BrokerConnection &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    auto *layout = new QVBoxLayout(this);
    m_bar = new MessageBar;
    layout->addWidget(m_bar);
    auto *toolbar = new QHBoxLayout;
    m_file = new QLabel;
    m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    toolbar->addWidget(m_file, 1);
    auto addButton = [&](const QString &text, void (UsersPage::*action)(), bool needsUser, const QString &tip) {
        auto *button = new QPushButton(text);
        button->setToolTip(tip);
        connect(button, &QPushButton::clicked, this, action);
        toolbar->addWidget(button);
        if (needsUser)
            m_userActions.append(button);
        return button;
    };
    addButton(tr("Add user…"), &UsersPage::addUser, false,
              tr("A new user with roles of your choice; its API key is shown once."));
    addButton(tr("Rotate key…"), &UsersPage::rotateKey, true,
              tr("A new API key for the selected user; the old key stops working at once."));
    addButton(tr("Edit roles…"), &UsersPage::editRoles, true,
              tr("What the selected user may do. The last admin keeps an admin role."));
    m_disable = addButton(tr("Disable"), &UsersPage::toggleDisabled, true,
                          tr("Refuse (401) or accept the selected user's key again, without deleting it."));
    addButton(tr("Delete…"), &UsersPage::deleteUser, true,
              tr("Remove the selected user and its key; clients using it get 401."));
    layout->addLayout(toolbar);

    m_model = new UserTableModel(this);
    m_view = makeRowTable(QStringLiteral("users"), m_model, UserTableModel::Roles);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &UsersPage::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &UsersPage::updateActions);
    layout->addWidget(m_view, 1);
    updateActions();
}

void UsersPage::showStart(const StartReport &report)
{
    m_roles = report.roles;
    m_adminRoles = report.adminRoles;
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

void UsersPage::addUser()
{
    auto *dialog = new UserDialog(m_roles, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QString id = dialog->userId();
        whenFinished(m_client.addUser(id, dialog->userName(), dialog->roles()), this, [this, id](Result<IssuedKey> added) {
            if (!added) {
                refuse(tr("add %1").arg(id), added.error());
                return;
            }
            m_bar->showInfo(tr("User %1 added").arg(id));
            showKey(id, added->apiKey, tr("User <b>%1</b> was added with this API key.").arg(id.toHtmlEscaped()));
        });
    });
    dialog->open();
}

void UsersPage::refuse(const QString &what, const Error &error, bool takesAccess)
{
    QString text = tr("Could not %1: %2").arg(what, error.message);
    // The only conflict a change that takes access away meets is the directory keeping its last
    // enabled admin (whoever asks); say what to do instead.
    if (takesAccess && error.code == ErrorCode::Conflict)
        text += tr(". Give another user the admin role first; until then this user and its key stay as they were.");
    m_bar->showError(text);
}

bool UsersPage::losesFullPower(const User &user, const QStringList &roles) const
{
    auto admin = [this](const QStringList &list) {
        return std::any_of(list.begin(), list.end(), [this](const QString &role) { return m_adminRoles.contains(role); });
    };
    return admin(user.roles) && !admin(roles);
}

void UsersPage::rotateKey()
{
    const QString id = selectedUser();
    if (id.isEmpty())
        return;
    confirmAction(this, tr("Rotate key"),
                  tr("Give %1 a new API key? The current key stops working at once: clients using it will get 401 "
                     "until they are given the new one.").arg(id),
                  [this, id] {
        whenFinished(m_client.rotateKey(id), this, [this, id](Result<IssuedKey> rotated) {
            if (!rotated) {
                refuse(tr("rotate the key of %1").arg(id), rotated.error());
                return;
            }
            m_bar->showInfo(tr("%1 has a new key; the old one is refused").arg(id));
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
    connect(dialog, &QDialog::accepted, this, [this, dialog, user] {
        const QStringList roles = dialog->roles();
        auto change = [this, id = user.id, roles] {
            whenFinished(m_client.setRoles(id, roles), this, [this, id](Result<void> set) {
                if (!set)
                    refuse(tr("change the roles of %1").arg(id), set.error(), true);
                else
                    m_bar->showInfo(tr("Roles of %1 changed").arg(id));
            });
        };
        if (!losesFullPower(user, roles)) {
            change();
            return;
        }
        confirmAction(this, tr("Change roles"),
                      tr("Take the admin role from %1? Clients using its key will get 403 for everything the new "
                         "roles (%2) do not allow, including managing users.")
                          .arg(user.id, roles.join(QStringLiteral(", "))),
                      change);
    });
    dialog->open();
}

void UsersPage::toggleDisabled()
{
    const int row = m_view->currentIndex().row();
    if (row < 0)
        return;
    const User user = m_model->rowAt(row);
    const bool disable = !user.disabled;
    auto apply = [this, id = user.id, disable] {
        whenFinished(m_client.setDisabled(id, disable), this, [this, id, disable](Result<void> set) {
            if (!set)
                refuse(disable ? tr("disable %1").arg(id) : tr("enable %1").arg(id), set.error(), disable);
            else
                m_bar->showInfo(disable ? tr("%1 disabled: its key is refused").arg(id) : tr("%1 enabled").arg(id));
        });
    };
    if (!disable) {
        apply(); // gives access back: nothing to lose
        return;
    }
    confirmAction(this, tr("Disable"),
                  tr("Disable %1? Clients using its key will get 401 until it is enabled again.").arg(user.id), apply);
}

void UsersPage::deleteUser()
{
    const QString id = selectedUser();
    if (id.isEmpty())
        return;
    confirmAction(this, tr("Delete"),
                  tr("Delete %1? Clients using its key will get 401 from now on; this cannot be undone (a new user "
                     "gets a new key).").arg(id),
                  [this, id] {
        whenFinished(m_client.removeUser(id), this, [this, id](Result<void> removed) {
            if (!removed)
                refuse(tr("delete %1").arg(id), removed.error(), true);
            else
                m_bar->showInfo(tr("User %1 deleted").arg(id));
        });
    });
}

} // namespace Broker::Ui
