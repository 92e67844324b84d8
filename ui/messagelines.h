// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/message.h"
#include "core/result.h"

#include <QByteArray>

namespace Broker::Ui {

// The JSON Lines shape of exported messages, shared with `brokerctl export messages`: one object
// per line, the fields of a browsed message in GET /queues/{q}/messages —
//   {"id","timestamp","data","publisher","delivery_count","priority","headers",
//    "origin_queue","dead_letter_reason","dead_lettered_at","state","visible_at"}
// with `headers`, the dead-letter fields and `state`/`visible_at` (a delayed message: when it is
// due, unix seconds) only when they apply. `data` is the payload exactly as it was sent (its bytes
// are copied, never re-serialized). An import publishes `data`, `headers` and `priority` of each
// line, and a delayed line with the rest of its delay; the other fields are history and are not
// replayed (the broker gives new ids and timestamps).
namespace MessageLines {

// One line, ending in '\n'.
QByteArray toLine(const Broker::Message &message);
// The message a line asks to publish; an error names what is wrong with it. Blank lines are
// not messages: callers skip them.
// `nowMs` (unix milliseconds) is when it will be published: a delayed line's rest of its delay.
Result<NewMessage> fromLine(const QByteArray &line, qint64 nowMs);

} // namespace MessageLines

} // namespace Broker::Ui
