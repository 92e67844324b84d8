// SPDX-License-Identifier: GPL-3.0-or-later
#include "hashslot.h"

#include <array>

namespace Broker::Redis {

namespace {

// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection — the one Redis uses.
constexpr std::array<quint16, 256> makeTable()
{
    std::array<quint16, 256> table{};
    for (int byte = 0; byte < 256; ++byte) {
        quint16 crc = quint16(byte << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = quint16((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
        table[std::size_t(byte)] = crc;
    }
    return table;
}

constexpr std::array<quint16, 256> Crc16Table = makeTable();

quint16 crc16(QByteArrayView bytes)
{
    quint16 crc = 0;
    for (const char c : bytes)
        crc = quint16((crc << 8) ^ Crc16Table[std::size_t(((crc >> 8) ^ quint8(c)) & 0xff)]);
    return crc;
}

} // namespace

int hashSlot(QByteArrayView key)
{
    const qsizetype open = key.indexOf('{');
    if (open >= 0) {
        const qsizetype close = key.indexOf('}', open + 1);
        if (close > open + 1)
            key = key.sliced(open + 1, close - open - 1);
    }
    return crc16(key) & (SlotCount - 1);
}

} // namespace Broker::Redis
