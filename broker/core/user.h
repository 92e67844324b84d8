// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QStringView>

namespace Broker {

struct User
{
    QString id;
    QString name;
    QStringList roles;
    QByteArray keyHash;  // SHA-256 of the API key; the key itself is never kept
    QString keyPrefix;   // the start of a generated key, to tell keys apart; empty for operator-chosen keys
    bool disabled = false;
    qint64 createdMs = 0;
    qint64 lastUsedMs = 0; // in memory only; 0 = not used since start
};

// A key the directory just made. Shown to a person once; only its hash is stored.
struct IssuedKey
{
    QString userId;
    QString apiKey;
};

// 1 to 64 characters: letters, digits, and after the first also _ . - @.
bool isValidUserId(QStringView id);

} // namespace Broker
