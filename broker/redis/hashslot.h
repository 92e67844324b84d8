// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>

namespace Broker::Redis {

// Redis Cluster's key space: 16384 slots.
inline constexpr int SlotCount = 16384;

// The slot of `key` as Redis Cluster computes it: CRC16 (XMODEM) of the key modulo 16384, or of
// its hash tag — the bytes between the first '{' and the next '}' — when that is not empty, so
// that keys sharing a tag share a slot ("p{orders}:ready" and "p{orders}:meta").
int hashSlot(QByteArrayView key);

} // namespace Broker::Redis
