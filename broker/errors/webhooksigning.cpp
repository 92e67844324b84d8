// SPDX-License-Identifier: GPL-3.0-or-later
#include "webhooksigning.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>

namespace Broker {

QByteArray webhookSignature(const QByteArray &secret, const QByteArray &body)
{
    return "sha256=" + QMessageAuthenticationCode::hash(body, secret, QCryptographicHash::Sha256).toHex();
}

QString webhookTarget(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment).toString();
}

} // namespace Broker
