// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/storageoptions.h"

#include <QString>
#include <QStringList>

// The REST layer's option structs as plain values, in core so that BrokerConfig can take its
// defaults from them: each default is written here, once. The rest room uses them as they are.
namespace Broker::Rest {

// The limits the HTTP guard enforces before a request reaches QHttpServer.
struct HttpLimits
{
    qint64 maxBodyBytes = 1024 * 1024;
    int maxHeaderBytes = 16 * 1024; // request line and header fields together
    int maxHeaderFields = 100;
};

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

// HTTPS for the API (api.tls). The files are PEM; they are read at start and on reload (brokerd's
// SIGHUP, the desktop's Apply), and a reload that fails keeps what was served before.
struct TlsOptions
{
    bool enabled = false;
    QString certFile;     // the server's certificate, optionally followed by its chain
    QString keyFile;      // its private key (unencrypted PEM; keep it 0600)
    QString clientCaFile; // not empty: clients must present a certificate this CA signed (mutual TLS)
    QString minVersion = QStringLiteral("1.2"); // "1.2" or "1.3"
    int handshakeTimeoutMs = 10'000; // a connection whose handshake is not done by then is closed
};

// Failed authentications per client address (see AuthThrottle).
struct AuthThrottleOptions
{
    int failuresPerMinute = 30;
    int logIntervalMs = 10'000; // failed/throttled authentications: at most one summary record per interval
};

// The live event stream (GET /events, api.events).
struct EventStreamOptions
{
    int heartbeatSeconds = 15;       // a comment line on a stream that had nothing else to say this long
    int updateIntervalMs = 250;      // queue and broker counters are compared and sent at most this often
    int maxStreamsPerUser = 8;       // open streams per API key's user; beyond: 429
    int maxStreamsPerAddress = 32;   // per client address (IPv6: per /64); beyond: 429
    // What may wait for one stream's reader: beyond it no more is written, and the reader later
    // resumes where it was (or after a `gap` event when the history has moved on).
    qint64 maxBufferedBytes = 256 * 1024;
    int stallTimeoutMs = 30'000;     // a reader that takes nothing this long while over the bound is dropped

    friend bool operator==(const EventStreamOptions &, const EventStreamOptions &) = default;
};

struct RestOptions
{
    GuardOptions guard;
    TlsOptions tls;
    bool plaintextBehindProxy = false; // api.plaintext_behind_proxy: plain HTTP elsewhere than loopback is meant
    int maxJsonDepth = 64;
    QStringList corsOrigins;       // exact origins allowed to call from a browser
    bool rateLimitEnabled = false; // per API key
    int requestsPerMinute = 600;
    int burst = 100;               // requests allowed at once above the steady rate
    int authFailuresPerMinute = AuthThrottleOptions{}.failuresPerMinute; // per client address, always on
    int authLogIntervalMs = AuthThrottleOptions{}.logIntervalMs;
    Durability durability = Durability::None; // what the store promises
    EventStreamOptions events;
};

} // namespace Broker::Rest
