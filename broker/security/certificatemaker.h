// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/certificaterequest.h"
#include "core/result.h"

#include <QString>
#include <QStringList>

namespace Broker {

// A self-signed certificate for a LAN or a test, the way mkcert makes one: a one-off CA
// (EC P-256, CA:TRUE, keyCertSign) signs a server certificate (EC P-256, CA:FALSE, serverAuth,
// every host as a subject alternative name, random 128-bit serial); the CA's key is then
// thrown away, so that no one can sign more certificates with it. Uses OpenSSL's libcrypto.
// Errors name the file and the reason; they never contain key material.
class CertificateMaker
{
public:
    static Result<MadeCertificate> make(const CertificateRequest &request);
    // localhost, 127.0.0.1, ::1 and this machine's host name (when it has one besides localhost).
    static QStringList defaultHosts();
    // The configuration lines that serve the API with the certificate (message_broker.yaml).
    static QString configSnippet(const MadeCertificate &made);
};

} // namespace Broker
