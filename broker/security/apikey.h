// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace Broker::ApiKey {

// A fresh key: "bd_" and 43 characters of base64url holding 256 random bits from the system's
// cryptographic generator.
QString generate();
// SHA-256 of the key's UTF-8 bytes (32 bytes). Keys carry 256 bits of entropy, so a fast hash
// is enough; there is nothing to brute-force.
QByteArray hash(const QString &key);
// Compares two byte strings in time that depends only on their lengths.
bool constantTimeEquals(QByteArrayView a, QByteArrayView b);
// gCore's users.yaml.example ships keys like "admin-key-example"; empty keys are placeholders too.
bool isPlaceholder(const QString &key);
// What may be shown of a key to tell keys apart: the first 7 characters of a generated key
// ("bd_..."), nothing of a key an operator chose.
QString displayPrefix(const QString &key);

} // namespace Broker::ApiKey
