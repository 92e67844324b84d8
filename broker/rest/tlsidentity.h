// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/httpoptions.h"
#include "core/result.h"
#include "tlsservercontext.h"

#include <QDateTime>

#include <memory>

namespace Broker::Rest {

// What the API serves over TLS, read from api.tls's files: the server context each new connection
// is made from, and what health and metrics say about the certificate.
struct TlsIdentity
{
    std::shared_ptr<const TlsServerContext> context;
    QDateTime notAfter;          // the certificate's expiry (UTC)
    QString subject;             // its common name, or the first subject alternative name
    QString sha256Fingerprint;   // "AA:BB:…"
    bool clientCertificates = false; // clients must present one (client_ca_file)

    // Whole days until expiry (negative once expired), at `now`.
    qint64 daysLeft(const QDateTime &now) const { return now.daysTo(notAfter); }
};

// Reads and checks the certificate chain, the private key (that it is the certificate's), and the
// client CA when one is named. Errors name the option and what is wrong with its file, never the
// file's contents; the paths are the caller's to report.
Result<TlsIdentity> loadTlsIdentity(const TlsOptions &options);

} // namespace Broker::Rest
