// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QDialog>
#include <QHash>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTextEdit;

namespace Broker::Ui {

// Redrive of chosen dead-lettered messages back to their origin queues, each payload editable
// first. Preview asks the broker for a dry run (nothing moves) and shows, per message, its origin
// and a line diff of the payload as it is against the payload it would go back with; Redrive
// confirms with how many messages go where, then moves them. An edit that is not valid JSON is
// shown under the editor and blocks both. Only edited payloads are sent as edits (compact JSON);
// the others go back byte for byte as they were. Opens with open(): no nested event loop.
class RedriveDialog : public QDialog
{
    Q_OBJECT
public:
    // `queue` is the queue the messages were browsed in: a dead-letter queue, or a queue whose
    // dead-letter queue holds them (the broker's redrive takes either).
    RedriveDialog(BrokerConnection &client, const QString &queue, const QList<Broker::Message> &messages,
                  QWidget *parent = nullptr);

    QListWidget *messageList() const { return m_list; }
    QPlainTextEdit *editor() const { return m_editor; }
    QPushButton *previewButton() const { return m_preview; }
    QPushButton *redriveButton() const { return m_redrive; }
    QString problemText() const;
    // The last preview as plain text ("- " removed, "+ " added, "  " kept), for tests.
    QString previewText() const;
    // The edits the request carries: id -> compact JSON of the edited payload.
    QHash<QString, QByteArray> edits() const;

    void preview();
    void redrive();

Q_SIGNALS:
    void previewShown();
    // The redrive ran (or failed: `error` says why); the dialog closes after a success.
    void redriven(qint64 moved, const QStringList &missing, const QString &error);

private:
    void showMessage(int row);
    void editorChanged();
    void updateButtons();
    void showPreview(const Broker::RedriveResult &result);
    RedriveRequest request(bool dryRun) const;
    // "2 to orders, 1 to billing"
    QString destinations() const;

    BrokerConnection &m_client;
    QString m_queue;
    QList<Broker::Message> m_messages;
    QHash<QString, QString> m_texts;    // id -> the editor's text, once shown
    QHash<QString, QString> m_problems; // id -> why its text is not JSON
    int m_shown = -1;
    bool m_busy = false;
    QListWidget *m_list;
    QPlainTextEdit *m_editor;
    QLabel *m_problem;
    QTextEdit *m_diff;
    QLabel *m_summary;
    QPushButton *m_preview;
    QPushButton *m_redrive;
    QString m_previewText;
};

} // namespace Broker::Ui
