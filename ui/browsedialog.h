// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QDialog>

namespace Broker::Ui {

class MessageBrowser;

// The queues page's Browse…: the queue detail's message browser (states, search, actions,
// export and import) in a window of its own, for a look without leaving the queues table.
class BrowseDialog : public QDialog
{
    Q_OBJECT
public:
    BrowseDialog(BrokerConnection &client, const StartReport &start, const QString &queue, QWidget *parent = nullptr);

    MessageBrowser *browser() const { return m_browser; }

private:
    MessageBrowser *m_browser;
};

} // namespace Broker::Ui
