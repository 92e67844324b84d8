// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/browsequery.h"
#include "core/message.h"
#include "core/messageaction.h"
#include "core/queueconfig.h"
#include "core/queueconfigchange.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace Broker::ApiRequests {

// The request bodies, paths and queries of the REST API's administration commands, written with
// the field names the controllers parse (queuescontroller, messagescontroller,
// messageactionscontroller, userscontroller). Bodies are compact JSON text; message payloads,
// already JSON text, are embedded as they are.

// One path segment (a queue name, a message or user id), percent-encoded: a '/' or '?' in an id
// stays inside its segment.
QString segment(const QString &text);

// POST /queues: {"name", "options": every option of `config`}. Options the caller left at their
// defaults are sent too: the queue gets what the dialog showed, not the remote broker's defaults.
QByteArray createQueue(const QString &name, const QueueConfig &config);
// PATCH /queues/{q}: {"options": the options `change` names}; removing the dead-letter queue is false.
QByteArray updateQueue(const QueueConfigChange &change);

struct Publish
{
    QString path;   // /messages/{q} for one message, /messages/{q}/batch for several
    QByteArray body;
};
// One message, or a batch, which the API publishes all or none. A batch body carries one set of
// options (priority, delay, headers, key) for all of its messages: a batch whose messages differ
// in them is refused here (InvalidArgument), since publishing it in parts would lose all-or-none.
Result<Publish> publish(const QString &queue, const QList<NewMessage> &messages);

// The query of GET /queues/{q}/messages: every BrowseQuery field (state, offset, limit, q, header, id).
QString browseQuery(const BrowseQuery &query);
// POST /queues/{q}/redrive: limit, ids, edits (payload text as given) and dry_run, each only when set.
QByteArray redrive(const RedriveRequest &request);
// POST /queues/{q}/messages/actions: {"action", "ids", "target" for a move}.
QByteArray messageAction(const MessageAction &action);

QByteArray addUser(const QString &id, const QString &name, const QStringList &roles);
QByteArray setRoles(const QStringList &roles);
QByteArray setDisabled(bool disabled);

} // namespace Broker::ApiRequests
