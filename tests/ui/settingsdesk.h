// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The desktop app as the Settings tests drive it: a window and its broker on a config file of
// their own, in a temporary folder.
#include "ui/mainwindow.h"
#include "ui/settingspage.h"

#include "runtime/brokerclient.h"

#include <QFile>
#include <QPushButton>
#include <QTemporaryDir>

#include <memory>

namespace Broker::Testing {

// A desktop app on a config file of its own: the window and its broker, started.
struct Desk
{
    QTemporaryDir dir;
    HostSettings settings;
    std::unique_ptr<BrokerClient> client;
    std::unique_ptr<Ui::MainWindow> window;

    // `start` false: the window is shown and the broker started by the test (window->startBroker()).
    explicit Desk(const QByteArray &config, int commandLinePort = -1, bool start = true)
    {
        QFile file(dir.filePath("message_broker.yaml"));
        if (file.open(QIODevice::WriteOnly))
            file.write(config);
        file.close();
        settings.configFile = dir.filePath("message_broker.yaml");
        settings.createUsersFile = true;
        settings.portOverride = commandLinePort;
        client = std::make_unique<BrokerClient>(100);
        window = std::make_unique<Ui::MainWindow>(*client, settings);
        window->show();
        if (start)
            window->startBroker();
    }
    ~Desk()
    {
        window.reset();
        client.reset();
    }
    Ui::SettingsPage *page() const { return window->settingsPage(); }
    QByteArray file(const QString &name) const
    {
        QFile in(dir.filePath(name));
        return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
    }
    QPushButton *button(const QString &name) const { return page()->findChild<QPushButton *>(name); }
    bool running() const { return client->state() == BrokerClient::State::Running; }
};

inline QByteArray configOnPort(int port)
{
    return QStringLiteral("api: {bind: 127.0.0.1, port: %1}\n").arg(port).toUtf8();
}

} // namespace Broker::Testing
