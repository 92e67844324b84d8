// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerclient.h"

#include <QNetworkAccessManager>
#include <QObject>
#include <QTimer>

#include <memory>

namespace Broker::Ui {
class MainWindow;
}

namespace Broker::Desktop {

// `brokerdesk --screenshots DIR`: fills a throw-away broker with sample queues, users and a few
// seconds of real traffic over its REST API, then renders every page to DIR/<page>.png (the
// pictures in the README and the AppStream data) and quits with 0, or 1 when anything failed.
class ScreenshotSession : public QObject
{
    Q_OBJECT
public:
    ScreenshotSession(BrokerClient &client, Ui::MainWindow &window, QString outputDir, QObject *parent = nullptr);
    ~ScreenshotSession() override;

    // Call with the report of the broker's start.
    void run(const StartReport &report);

private:
    void seed();
    void sendTraffic();
    void leaseAndNack();
    void finish();
    // The sample broker in a remote broker's window, over its API: remote-overview.png.
    void renderRemoteWindow();
    void request(const QByteArray &method, const QString &path, const QByteArray &body = {},
                 const QString &apiKey = {});

    BrokerClient &m_client;
    Ui::MainWindow &m_window;
    QString m_outputDir;
    StartReport m_report;
    QString m_adminKey;
    QNetworkAccessManager m_network;
    QTimer m_traffic;
    int m_ticks = 0;
    std::unique_ptr<Ui::MainWindow> m_remote;
};

} // namespace Broker::Desktop
