// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuename.h"

namespace Broker::QueueName {

namespace {
bool isAlnum(char16_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
} // namespace

bool isValid(QStringView name)
{
    if (name.isEmpty() || name.size() > 128 || !isAlnum(name.front().unicode()))
        return false;
    for (QChar c : name) {
        const char16_t u = c.unicode();
        if (!isAlnum(u) && u != '_' && u != '.' && u != '-')
            return false;
    }
    return true;
}

} // namespace Broker::QueueName
