// SPDX-License-Identifier: GPL-3.0-or-later
#include "browsedialog.h"

#include "messagebrowser.h"

#include <QDialogButtonBox>
#include <QVBoxLayout>

#include <algorithm>

namespace Broker::Ui {

BrowseDialog::BrowseDialog(BrokerConnection &client, const StartReport &start, const QString &queue, QWidget *parent)
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
    // What the actions need from the snapshots: the queue's options (its dead-letter queue) and
    // the names Move… offers. A binary search: the queues come sorted by name.
    connect(&client, &BrokerConnection::snapshotUpdated, this, [this, queue](const BrokerSnapshot &snapshot) {
        m_browser->showQueues(snapshot.queues);
        const auto found = std::lower_bound(snapshot.queues.cbegin(), snapshot.queues.cend(), queue,
                                            [](const QueueInfo &info, const QString &name) { return info.name < name; });
        if (found != snapshot.queues.cend() && found->name == queue)
            m_browser->showQueueInfo(*found);
    });
}

} // namespace Broker::Ui
