// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLocalServer>
#include <QObject>

namespace Broker::Desktop {

// One brokerdesk per user and configuration: the first instance listens on a local socket; a
// later launch finds it, asks it to come to the front, and exits.
class SingleInstance : public QObject
{
    Q_OBJECT
public:
    explicit SingleInstance(const QString &key, QObject *parent = nullptr);

    // True when another instance answered (it was asked to show itself); this one should exit.
    bool handOverToRunning();
    // Becomes the instance that later launches find. False when the socket cannot be made.
    bool listen();

Q_SIGNALS:
    void activationRequested();

private:
    QString m_name;
    QLocalServer m_server;
};

} // namespace Broker::Desktop
