// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace Broker::Ui {

class MessageBar;
class UserTableModel;

// The users of users.yaml: add (the key is shown once), rotate a key, edit roles, disable or
// enable, delete. Every change is written to the file before it shows here. Whatever takes
// access away (disable, delete, rotate, taking the admin role) asks first and names what clients
// will see; the directory's rules (one enabled admin stays) answer for every path alike.
class UsersPage : public QWidget
{
    Q_OBJECT
public:
    explicit UsersPage(BrokerConnection &client, QWidget *parent = nullptr);

    void showStart(const Broker::StartReport &report);
    void showDirectory(const Broker::HostDirectory &directory);
    UserTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QString selectedUser() const;

    void addUser();
    void rotateKey();
    void editRoles();
    void toggleDisabled();
    void deleteUser();

private:
    void showKey(const QString &userId, const QString &apiKey, const QString &intro);
    // Shows why the directory refused a change, and what to do instead.
    void refuse(const QString &what, const Error &error, bool takesAccess = false);
    // True when `roles` no longer include one that grants everything while the user's do.
    bool losesFullPower(const User &user, const QStringList &roles) const;
    void updateActions();

    BrokerConnection &m_client;
    QStringList m_roles;
    QStringList m_adminRoles;
    UserTableModel *m_model;
    QTableView *m_view;
    QLabel *m_file;
    MessageBar *m_bar;
    QPushButton *m_disable;
    QList<QPushButton *> m_userActions;
};

} // namespace Broker::Ui
