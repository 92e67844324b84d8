// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace Broker {

// What every webhook BrokerDesk sends has in common (the notification webhook and webhook
// processors): how a body is signed and how a URL may be shown.

// The header that carries the signature when a secret is set.
inline constexpr char WebhookSignatureHeader[] = "X-BrokerDesk-Signature";
// "sha256=<hex HMAC-SHA256 of body with secret>", what a receiver recomputes to trust the body.
QByteArray webhookSignature(const QByteArray &secret, const QByteArray &body);
// scheme://host[:port] of `url`: never its credentials, path, query or fragment (which often
// carry tokens), for statuses and logs.
QString webhookTarget(const QUrl &url);

} // namespace Broker
