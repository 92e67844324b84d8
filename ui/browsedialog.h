// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerclient.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace Broker::Ui {

// Pages through a queue's messages without consuming them; the selected message's JSON is shown
// indented, with its headers and, for dead letters, where it came from and why.
class BrowseDialog : public QDialog
{
    Q_OBJECT
public:
    static constexpr int PageSize = 50;

    BrowseDialog(BrokerClient &client, const QString &queue, QWidget *parent = nullptr);

    void loadPage(qint64 offset);
    int shownCount() const;
    QString shownJson() const;

private:
    void showPage(const BrowsePage &page);
    void showMessage(int row);

    BrokerClient &m_client;
    QString m_queue;
    qint64 m_offset = 0;
    QList<Message> m_messages;
    qint64 m_nextOffset = -1;
    QTableWidget *m_table;
    QPlainTextEdit *m_body;
    QLabel *m_position;
    QPushButton *m_previous;
    QPushButton *m_next;
};

} // namespace Broker::Ui
