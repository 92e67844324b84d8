// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "requestframer.h"

namespace Broker::Rest {

// What the HTTP guard enforces on every connection. 0 is never "unlimited".
struct GuardOptions
{
    HttpLimits limits;
    int idleTimeoutMs = 60'000;     // keep-alive connection between requests
    int headTimeoutMs = 10'000;     // a new connection's first head, or a head's first byte to its end
    int requestTimeoutMs = 30'000;  // from a request's first byte until it is complete (body included)
    int maxConnections = 1000;      // beyond: 503 and close
    int maxConnectionsPerAddress = 64;         // per client address (IPv6: per /64); beyond: 503
    int maxConnectionsPerLoopbackAddress = 256; // the same for 127.0.0.0/8 and ::1 (local programs share them)
    // Output backpressure: while more than this waits for the client to read, nothing more is read
    // or answered on the connection. One response may exceed it; the next waits.
    qint64 maxPendingOutputBytes = 512 * 1024;
    int outputDrainTimeoutMs = 10'000; // over the bound, the client takes nothing this long: the connection is cut
    qint64 socketReadBufferBytes = 64 * 1024; // most bytes taken from the kernel at once
};

// What the guard turned away or cut off since it started, per reason.
struct GuardStats
{
    qint64 refusedServerFull = 0;   // max_connections reached
    qint64 refusedAddressFull = 0;  // the client's own cap reached
    qint64 refusedStopping = 0;     // the server was shutting down
    qint64 headTimeouts = 0;        // no complete head in time (408, or closed when nothing came)
    qint64 requestTimeouts = 0;     // a body that did not arrive in time (408)
    qint64 stalledOutputs = 0;      // a client that did not read its responses (cut off)

    qint64 refused() const { return refusedServerFull + refusedAddressFull + refusedStopping; }
};

} // namespace Broker::Rest
