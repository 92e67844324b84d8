// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace Broker {

// A self-signed certificate to make for the API (`brokerd --make-cert`, the desktop's Settings):
// what is asked for and what was written, as plain values for any thread. CertificateMaker
// (security) makes it.
struct CertificateRequest
{
    QString directory;      // created with mode 0700 when missing
    QStringList hosts;      // DNS names or IP addresses for the server certificate; empty: the maker's defaults
    bool force = false;     // replace ca.crt, server.crt and server.key when they exist
    int validityDays = 825; // the longest that Apple's and browsers' rules accept for a server certificate
};

struct MadeCertificate
{
    QString caFile;         // DIR/ca.crt: what clients trust (brokerctl --cacert, curl --cacert)
    QString certFile;       // DIR/server.crt: the server certificate followed by ca.crt
    QString keyFile;        // DIR/server.key: the server's private key, PKCS#8 PEM, mode 0600
    QString fingerprint;    // SHA-256 of the server certificate, "AA:BB:..."
    QStringList hosts;      // the subject alternative names, in the order given
};

} // namespace Broker
