// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../rest/restfixture.h"

#include "runtime/remotefeed.h"

namespace Broker::Testing {

// Where a RestFixture's API is, as a desktop would reach it: https (trusting the test's CA) when
// the fixture serves TLS, with `key`.
inline RemoteEndpoint endpointOf(const RestFixture &f, const QByteArray &key)
{
    RemoteEndpoint endpoint;
    endpoint.url = QUrl(QStringLiteral("%1://127.0.0.1:%2").arg(RestFixture::tlsByDefault() ? "https" : "http").arg(f.port));
    endpoint.apiKey = key;
    if (!RawClient::tlsCaFile.isEmpty())
        endpoint.caCertificates = QSslCertificate::fromPath(RawClient::tlsCaFile);
    return endpoint;
}

} // namespace Broker::Testing
