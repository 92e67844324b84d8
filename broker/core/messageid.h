// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace Broker::MessageId {

// Message ids are "msg-" followed by 16 lowercase hex digits of a 64-bit sequence number.
// Stores allocate the numbers (the memory store from a time-seeded counter, so that ids stay
// unique across restarts; brokers on one Redis from NodeIdGenerator, unique per node); the text
// form is what clients see.
inline constexpr qsizetype TextLength = 20;
// Writes the text form into `out`: TextLength characters, not terminated.
void write(quint64 sequence, char *out);
QString format(quint64 sequence);
std::optional<quint64> parse(QStringView id);

} // namespace Broker::MessageId
