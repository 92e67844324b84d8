// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/redisoptions.h"
#include "core/result.h"

#include <QSslConfiguration>

namespace Broker::Redis {

// The TLS side of `options` as Qt's configuration, with the files read now: the CA certificates
// (tlsCaFile, or the system's store when empty), the client certificate chain and its key
// (mutual TLS), and peer verification on. An error (InvalidArgument) names the option the way
// message_broker.yaml spells it ("tls_ca_file") and the file, never what is in the file.
// Called for every connect, and once at start-up so that a broker with unusable files refuses to start.
Result<QSslConfiguration> tlsConfiguration(const ConnectionOptions &options);

// The name the server's certificate must carry (and the SNI sent): tlsServerName, else host.
QString tlsPeerName(const ConnectionOptions &options);

} // namespace Broker::Redis
