// SPDX-License-Identifier: GPL-3.0-or-later
#include "user.h"

namespace Broker {

bool isValidUserId(QStringView id)
{
    if (id.isEmpty() || id.size() > 64)
        return false;
    for (qsizetype i = 0; i < id.size(); ++i) {
        const char16_t c = id[i].unicode();
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-' && c != '@')))
            return false;
    }
    return true;
}

} // namespace Broker
