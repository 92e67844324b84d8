// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/httpoptions.h"

namespace Broker::Rest {

// What the guard turned away or cut off since it started, per reason.
struct GuardStats
{
    qint64 refusedServerFull = 0;   // max_connections reached
    qint64 refusedAddressFull = 0;  // the client's own cap reached
    qint64 refusedStopping = 0;     // the server was shutting down
    qint64 headTimeouts = 0;        // no complete head in time (408, or closed when nothing came)
    qint64 requestTimeouts = 0;     // a body that did not arrive in time (408)
    qint64 stalledOutputs = 0;      // a client that did not read its responses (cut off)
    qint64 tlsHandshakeFailures = 0; // refused or broken TLS handshakes (no client certificate, bad protocol)
    qint64 tlsHandshakeTimeouts = 0; // TLS handshakes not finished within api.tls.handshake_timeout_seconds

    qint64 refused() const { return refusedServerFull + refusedAddressFull + refusedStopping; }
};

} // namespace Broker::Rest
