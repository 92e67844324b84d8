// SPDX-License-Identifier: GPL-3.0-or-later
#include "browsedialog.h"

#include "messagebrowser.h"

#include <QDialogButtonBox>
#include <QVBoxLayout>

namespace Broker::Ui {

BrowseDialog::BrowseDialog(BrokerClient &client, const StartReport &start, const QString &queue, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Messages in %1").arg(queue));
    resize(980, 560);
    auto *layout = new QVBoxLayout(this);
    m_browser = new MessageBrowser(client);
    m_browser->showStart(start);
    layout->addWidget(m_browser, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    m_browser->showQueue(queue);
}

} // namespace Broker::Ui
