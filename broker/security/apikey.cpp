// SPDX-License-Identifier: GPL-3.0-or-later
#include "apikey.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

#include <array>

namespace Broker::ApiKey {

QString generate()
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    const QByteArray bytes(reinterpret_cast<const char *>(words.data()), qsizetype(sizeof(words)));
    return QStringLiteral("bd_")
        + QString::fromLatin1(bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

QByteArray hash(const QString &key)
{
    return QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha256);
}

bool constantTimeEquals(QByteArrayView a, QByteArrayView b)
{
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0;
}

bool isPlaceholder(const QString &key)
{
    return key.trimmed().isEmpty() || key.contains(QLatin1StringView("-example"));
}

QString displayPrefix(const QString &key)
{
    // A generated key has 256 random bits: "bd_" and four more characters (24 bits) tell keys
    // apart and leave 232 bits unknown. An operator-chosen key may be short or guessable, so
    // none of it is shown.
    if (key.startsWith(QLatin1StringView("bd_")))
        return key.left(7);
    return {};
}

} // namespace Broker::ApiKey
