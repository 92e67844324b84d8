// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "requestframer.h"

namespace Broker::Rest {

// What the HTTP guard enforces on every connection. 0 is never "unlimited".
struct GuardOptions
{
    HttpLimits limits;
    int idleTimeoutMs = 60'000;     // keep-alive connection without a request
    int requestTimeoutMs = 30'000;  // from a request's first byte until it is complete
    int maxConnections = 1000;      // beyond: 503 and close
    qint64 socketReadBufferBytes = 64 * 1024; // most bytes taken from the kernel at once
};

} // namespace Broker::Rest
