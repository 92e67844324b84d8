// SPDX-License-Identifier: GPL-3.0-or-later
#include "confirm.h"

#include <QMessageBox>
#include <QPushButton>

namespace Broker::Ui {

void confirmAction(QWidget *parent, const QString &action, const QString &question, std::function<void()> onYes)
{
    auto *box = new QMessageBox(QMessageBox::Question, action, question, QMessageBox::Cancel, parent);
    QPushButton *yes = box->addButton(action, QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(box, &QMessageBox::buttonClicked, box, [yes, onYes = std::move(onYes)](QAbstractButton *clicked) {
        if (clicked == yes)
            onYes();
    });
    box->open();
}

} // namespace Broker::Ui
