// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <functional>

namespace Broker::Ui {

// The desktop's keyring (Secret Service or KWallet, through QtKeychain), holding the API keys of
// remote brokers by connection name. Asynchronous: every answer comes later through the event
// loop, delivered to `context` (dropped when it is gone), so a slow or locked keyring never holds
// the GUI. Where no keyring runs, the answers are errors that say so; the caller then keeps the
// key for the session only or uses a key file.
class Keyring : public QObject
{
    Q_OBJECT
public:
    explicit Keyring(QString service = QStringLiteral("brokerdesk"), QObject *parent = nullptr);

    void read(const QString &connection, QObject *context, std::function<void(Result<QByteArray>)> done);
    void write(const QString &connection, const QByteArray &key, QObject *context, std::function<void(Result<void>)> done);
    void remove(const QString &connection);

private:
    QString m_service;
};

} // namespace Broker::Ui
