// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace Broker::Ui {

// A new user (id, name, roles), or new roles for an existing one (the id is then fixed).
class UserDialog : public QDialog
{
    Q_OBJECT
public:
    UserDialog(const QStringList &roles, QWidget *parent = nullptr);

    void editExisting(const QString &id, const QString &name, const QStringList &roles);
    QString userId() const;
    QString userName() const;
    QStringList roles() const;

private:
    void updateState();

    QLineEdit *m_id;
    QLineEdit *m_name;
    QList<QCheckBox *> m_roles;
    QLabel *m_problem;
    QPushButton *m_ok;
};

} // namespace Broker::Ui
