// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QFile>
#include <QObject>
#include <QPointer>
#include <QSaveFile>

#include <functional>
#include <memory>

class QProgressDialog;

namespace Broker::Ui {

// Moves messages between a queue and a JSON Lines file (the shape: messagelines.h), a page or a
// chunk at a time so that memory stays bounded by one page and the GUI thread never waits: each
// step asks the broker (a future) or touches the file for one chunk, then returns to the event
// loop. A QProgressDialog shows how far it got; Cancel stops after the step in progress. The
// object deletes itself when done; finished() says how it ended.
class MessageTransfer : public QObject
{
    Q_OBJECT
public:
    // One page of the messages to export: offset and limit in, a BrowsePage out.
    using PageSource = std::function<QFuture<Result<BrowsePage>>(qint64 offset, qint64 limit)>;

    static constexpr qint64 ExportPageSize = 200;
    // An import reads and publishes at most this many lines, or this many bytes, per step.
    static constexpr int ImportChunkLines = 100;
    static constexpr qint64 ImportChunkBytes = 1 << 20;

    // Writes every message `source` pages out to `fileName` (replaced only when the export
    // completes: a cancelled or failed export leaves no half file behind).
    static MessageTransfer *exportTo(const QString &fileName, PageSource source, qint64 expected, QWidget *parent);
    // Writes `messages` (a selection already at hand).
    static MessageTransfer *exportMessages(const QString &fileName, const QList<Broker::Message> &messages,
                                           QWidget *parent);
    // Publishes every line of `fileName` to `queue`.
    static MessageTransfer *importFrom(const QString &fileName, BrokerConnection &client, const QString &queue,
                                       QWidget *parent);

    qint64 done() const { return m_done; }

Q_SIGNALS:
    // `error` is empty on success; `cancelled` when the user stopped it. `count` messages moved.
    void finished(qint64 count, bool cancelled, const QString &error);

private:
    explicit MessageTransfer(QWidget *parent);
    void showProgress(const QString &label, qint64 expected);
    void finish(const QString &error);
    bool cancelled() const;

    void exportNextPage();
    void importNextChunk();

    QPointer<QProgressDialog> m_progress;
    qint64 m_done = 0;
    qint64 m_expected = 0;
    bool m_finished = false;
    // Export
    PageSource m_source;
    qint64 m_offset = 0;
    std::unique_ptr<QSaveFile> m_out;
    // Import
    BrokerConnection *m_client = nullptr;
    QString m_queue;
    std::unique_ptr<QFile> m_in;
    qint64 m_lineNumber = 0;
};

} // namespace Broker::Ui
