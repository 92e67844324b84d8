// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagetransfer.h"

#include "messagelines.h"

#include "runtime/continuation.h"

#include <QDateTime>
#include <QProgressDialog>
#include <QTimer>

namespace Broker::Ui {

namespace {

// Progress dialogs count in int; files and queues can be larger.
constexpr int ProgressSteps = 1000;

int progressStep(qint64 done, qint64 total)
{
    return total <= 0 ? 0 : int(qBound<qint64>(0, done * ProgressSteps / total, qint64(ProgressSteps)));
}

} // namespace

MessageTransfer::MessageTransfer(QWidget *parent) : QObject(parent) {}

void MessageTransfer::showProgress(const QString &label, qint64 expected)
{
    m_expected = expected;
    auto *parentWidget = qobject_cast<QWidget *>(parent());
    m_progress = new QProgressDialog(label, tr("Cancel"), 0, ProgressSteps, parentWidget);
    m_progress->setWindowModality(Qt::WindowModal);
    m_progress->setMinimumDuration(300); // quick transfers finish before it shows
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    m_progress->setValue(0);
}

bool MessageTransfer::cancelled() const
{
    return m_progress && m_progress->wasCanceled();
}

void MessageTransfer::finish(const QString &error)
{
    if (m_finished)
        return;
    m_finished = true;
    const bool wasCancelled = cancelled();
    if (m_out) {
        if (error.isEmpty() && !wasCancelled) {
            if (!m_out->commit()) {
                Q_EMIT finished(m_done, false, tr("Could not write the file: %1").arg(m_out->errorString()));
                m_out.reset();
                if (m_progress)
                    m_progress->deleteLater();
                deleteLater();
                return;
            }
        } else {
            m_out->cancelWriting();
        }
        m_out.reset();
    }
    m_in.reset();
    if (m_progress)
        m_progress->deleteLater();
    Q_EMIT finished(m_done, wasCancelled, error);
    deleteLater();
}

MessageTransfer *MessageTransfer::exportTo(const QString &fileName, PageSource source, qint64 expected, QWidget *parent)
{
    auto *transfer = new MessageTransfer(parent);
    transfer->m_source = std::move(source);
    transfer->m_out = std::make_unique<QSaveFile>(fileName);
    transfer->showProgress(tr("Exporting messages…"), expected);
    // Start from the event loop, so that the caller connects to finished() first.
    QTimer::singleShot(0, transfer, [transfer] {
        if (!transfer->m_out->open(QIODevice::WriteOnly))
            return transfer->finish(tr("Could not open the file: %1").arg(transfer->m_out->errorString()));
        transfer->exportNextPage();
    });
    return transfer;
}

MessageTransfer *MessageTransfer::exportMessages(const QString &fileName, const QList<Message> &messages, QWidget *parent)
{
    auto source = [messages](qint64 offset, qint64 limit) {
        BrowsePage page;
        page.messages = messages.mid(offset, limit);
        page.total = messages.size();
        page.nextOffset = offset + limit < messages.size() ? offset + limit : -1;
        return QtFuture::makeReadyFuture(Result<BrowsePage>(std::move(page)));
    };
    return exportTo(fileName, source, messages.size(), parent);
}

void MessageTransfer::exportNextPage()
{
    if (cancelled())
        return finish({});
    whenFinished(m_source(m_offset, ExportPageSize), this, [this](const Result<BrowsePage> &page) {
        if (!page)
            return finish(tr("The broker refused a page: %1").arg(page.error().message));
        // A search (or the dead-lettered state) examines at most BrowseQuery::MaxScan messages:
        // an export that stopped there would look complete while messages were left out.
        if (page->truncated)
            return finish(tr("The search stopped after examining %1 messages, so an export would be incomplete; "
                             "export without a search, or narrow it")
                              .arg(page->scanned));
        for (const Message &message : page->messages) {
            if (m_out->write(MessageLines::toLine(message)) < 0)
                return finish(tr("Could not write the file: %1").arg(m_out->errorString()));
        }
        m_done += page->messages.size();
        m_expected = qMax(m_expected, page->total);
        if (m_progress) {
            m_progress->setLabelText(tr("Exported %1 of %2 messages…").arg(m_done).arg(m_expected));
            m_progress->setValue(progressStep(m_done, m_expected));
        }
        if (page->nextOffset < 0 || page->messages.isEmpty())
            return finish({});
        m_offset = page->nextOffset;
        exportNextPage();
    });
}

MessageTransfer *MessageTransfer::importFrom(const QString &fileName, BrokerConnection &client, const QString &queue,
                                             QWidget *parent)
{
    auto *transfer = new MessageTransfer(parent);
    transfer->m_client = &client;
    transfer->m_queue = queue;
    transfer->m_in = std::make_unique<QFile>(fileName);
    transfer->showProgress(tr("Importing messages into %1…").arg(queue), 0);
    QTimer::singleShot(0, transfer, [transfer] {
        if (!transfer->m_in->open(QIODevice::ReadOnly))
            return transfer->finish(tr("Could not open the file: %1").arg(transfer->m_in->errorString()));
        transfer->m_expected = transfer->m_in->size();
        transfer->importNextChunk();
    });
    return transfer;
}

void MessageTransfer::importNextChunk()
{
    if (cancelled())
        return finish({});
    // Read one chunk, then publish it; the next chunk is read once the broker has answered, so
    // at most one chunk is held and the broker is never flooded.
    QList<NewMessage> chunk;
    qint64 bytes = 0;
    while (chunk.size() < ImportChunkLines && bytes < ImportChunkBytes && !m_in->atEnd()) {
        const QByteArray line = m_in->readLine();
        ++m_lineNumber;
        bytes += line.size();
        if (line.trimmed().isEmpty())
            continue;
        Result<NewMessage> message = MessageLines::fromLine(line, QDateTime::currentMSecsSinceEpoch());
        if (!message)
            return finish(tr("Line %1: %2").arg(m_lineNumber).arg(message.error().message));
        chunk.append(std::move(*message));
    }
    if (chunk.isEmpty())
        return finish({});
    // One batch: the chunk goes in whole and in order, or not at all.
    const qint64 lines = m_lineNumber;
    whenFinished(m_client->publish(m_queue, chunk), this, [this, count = chunk.size(), lines](const Result<PublishResult> &published) {
        if (!published) {
            return finish(tr("The broker refused the messages up to line %1 (%2 were imported before them): %3")
                              .arg(lines)
                              .arg(m_done)
                              .arg(published.error().message));
        }
        m_done += count;
        if (m_progress) {
            m_progress->setLabelText(tr("Imported %1 messages into %2…").arg(m_done).arg(m_queue));
            m_progress->setValue(progressStep(m_in->pos(), m_expected));
        }
        importNextChunk();
    });
}

} // namespace Broker::Ui
