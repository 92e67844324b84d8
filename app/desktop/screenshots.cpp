// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshots.h"

#include "runtime/continuation.h"
#include "ui/eventtailmodel.h"
#include "ui/flowpage.h"
#include "ui/mainwindow.h"
#include "ui/palette.h"
#include "ui/queuespage.h"

#include "runtime/remoteconnection.h"

#include <QCoreApplication>
#include <QDebug>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QTableView>
#include <QTextStream>

namespace Broker::Desktop {

namespace {

constexpr int TrafficTickMs = 100;
constexpr int TrafficTicks = 200; // twenty seconds of traffic: a third of the rate charts

} // namespace

ScreenshotSession::ScreenshotSession(BrokerClient &client, Ui::MainWindow &window, QString outputDir, QObject *parent)
    : QObject(parent), m_client(client), m_window(window), m_outputDir(std::move(outputDir))
{
    m_traffic.setInterval(TrafficTickMs);
    connect(&m_traffic, &QTimer::timeout, this, &ScreenshotSession::sendTraffic);
}

void ScreenshotSession::run(const StartReport &report)
{
    m_report = report;
    if (!report.ok || report.issuedKeys.isEmpty()) {
        QTextStream(stderr) << "brokerdesk: the sample broker did not start: " << report.error << '\n';
        QCoreApplication::exit(1);
        return;
    }
    m_adminKey = report.issuedKeys.first().apiKey;
    seed();
}

void ScreenshotSession::seed()
{
    // Options as a POST /queues body carries them, read the same way, on the configured defaults.
    const auto createQueue = [this](const QString &name, const QJsonObject &options) {
        const Result<QueueConfig> config =
            QueueConfig::fromOptions(name, options, m_client.lastStart().queueDefaults);
        if (config)
            m_client.createQueue(name, *config);
        else
            qWarning().noquote() << "screenshots: cannot seed" << name << ":" << config.error().message;
    };
    createQueue(QStringLiteral("orders"), {{QStringLiteral("dead_letter_queue"), true}, {QStringLiteral("max_deliveries"), 1}});
    createQueue(QStringLiteral("emails.outbound"), {{QStringLiteral("max_size"), 50000}});
    createQueue(QStringLiteral("jobs.priority"), {{QStringLiteral("type"), QStringLiteral("priority")}});
    createQueue(QStringLiteral("audit.events"), {{QStringLiteral("type"), QStringLiteral("stream")}});
    m_client.addUser(QStringLiteral("billing_service"), QStringLiteral("Billing service"), {QStringLiteral("publisher")});
    m_client.addUser(QStringLiteral("mailer"), QStringLiteral("Mail sender"), {QStringLiteral("consumer")});
    whenFinished(m_client.addUser(QStringLiteral("reporting"), QStringLiteral("Nightly reports"), {QStringLiteral("consumer")}), this, [this](Result<IssuedKey>) {
            // A wrong key, as a misconfigured client would send: the Errors page shows the record.
            request("GET", QStringLiteral("/queues"), {}, QStringLiteral("not-a-valid-key"));
            m_traffic.start();
        });
}

void ScreenshotSession::request(const QByteArray &method, const QString &path, const QByteArray &body,
                                const QString &apiKey)
{
    QNetworkRequest request(QUrl(m_report.apiUrl + path));
    request.setRawHeader("X-API-Key", (apiKey.isEmpty() ? m_adminKey : apiKey).toUtf8());
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
    connect(reply, &QNetworkReply::finished, reply, &QObject::deleteLater);
}

void ScreenshotSession::leaseAndNack()
{
    QNetworkRequest lease(QUrl(m_report.apiUrl + QStringLiteral("/messages/orders?acknowledge=false")));
    lease.setRawHeader("X-API-Key", m_adminKey.toUtf8());
    QNetworkReply *reply = m_network.get(lease);
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        const QJsonObject message = QJsonDocument::fromJson(reply->readAll()).object().value(QStringLiteral("message")).toObject();
        const QString id = message.value(QStringLiteral("id")).toString();
        if (id.isEmpty())
            return;
        const QJsonObject nack{{QStringLiteral("receipt"), message.value(QStringLiteral("receipt"))}};
        request("POST", QStringLiteral("/messages/orders/%1/nack").arg(id), QJsonDocument(nack).toJson(QJsonDocument::Compact));
    });
}

void ScreenshotSession::sendTraffic()
{
    const int tick = ++m_ticks;
    // Orders arrive faster than they are handled, so the depth grows; some fail into the DLQ.
    for (int i = 0; i < 4; ++i)
        request("POST", QStringLiteral("/messages/orders"),
                QStringLiteral(R"({"message":{"order":%1,"total":%2.50,"currency":"EUR"}})")
                    .arg(tick * 4 + i)
                    .arg(10 + (tick * 7 + i) % 90)
                    .toUtf8());
    request("GET", QStringLiteral("/messages/orders?count=2"));
    // A consumer that fails some orders (nacked, and with max_deliveries 1 dead-lettered at once),
    // and another that holds a lease for a long time.
    if (tick % 2 == 0)
        leaseAndNack();
    if (tick % 10 == 0)
        request("GET", QStringLiteral("/messages/orders?acknowledge=false&visibility_timeout=600"));
    request("POST", QStringLiteral("/messages/emails.outbound"),
            QStringLiteral(R"({"message":{"to":"customer%1@example.com","template":"receipt"}})").arg(tick).toUtf8());
    if (tick % 2 == 0)
        request("GET", QStringLiteral("/messages/emails.outbound"));
    request("POST", QStringLiteral("/messages/jobs.priority"),
            QStringLiteral(R"({"message":{"job":"resize","image":%1},"priority":%2})").arg(tick).arg(tick % 3).toUtf8());
    request("POST", QStringLiteral("/messages/audit.events"),
            QStringLiteral(R"({"message":{"actor":"admin","action":"login","n":%1}})").arg(tick).toUtf8());
    if (tick >= TrafficTicks) {
        m_traffic.stop();
        // Two snapshot ticks later every page has the final state.
        QTimer::singleShot(700, this, &ScreenshotSession::finish);
    }
}

void ScreenshotSession::finish()
{
    m_window.queuesPage()->selectQueue(QStringLiteral("orders"));
    m_window.openQueue(QStringLiteral("orders")); // rendered as the queue detail pages
    // Show the lifecycle of the newest dead-lettered message (else of any): the longest story.
    QTableView *tail = m_window.flowPage()->tailView();
    for (int row = tail->model()->rowCount() - 1; row >= 0; --row) {
        const auto kind = MessageEventKind(tail->model()->index(row, 0).data(Ui::EventTailModel::KindRole).toInt());
        if (kind == MessageEventKind::DeadLettered || row == 0) {
            tail->selectRow(row);
            break;
        }
    }
    // The lifecycle answer arrives through the worker; give it a moment before rendering.
    // Every page in the desktop's own palette, then again in the dark theme under dark/.
    QTimer::singleShot(300, this, [this] {
        const QStringList light = m_window.renderPages(m_outputDir);
        const Ui::Palette::Theme chosen = Ui::Palette::currentTheme(); // the user's, not saved over
        Ui::Palette::applyTheme(Ui::Palette::Theme::Dark);
        QCoreApplication::processEvents(); // Qt 6.4 hands a new application palette to widgets by posted events
        const QStringList dark = m_window.renderPages(QDir(m_outputDir).filePath(QStringLiteral("dark")));
        Ui::Palette::applyTheme(chosen);
        QTextStream out(stdout);
        for (const QString &file : light + dark)
            out << file << '\n';
        if (light.size() < Ui::MainWindow::PageCount || dark.size() != light.size())
            return QCoreApplication::exit(1);
        renderRemoteWindow();
    });
}

void ScreenshotSession::renderRemoteWindow()
{
    // The same broker administered as a remote one: a window on a RemoteConnection to its REST API
    // and event stream, as the Brokers page opens one for a brokerd on a server.
    auto connection = std::make_unique<RemoteConnection>(QStringLiteral("staging"),
                                                         RemoteEndpoint{QUrl(m_report.apiUrl), m_adminKey.toUtf8(), {}});
    RemoteConnection *remote = connection.get();
    m_remote = std::make_unique<Ui::MainWindow>(std::move(connection));
    m_remote->setAttribute(Qt::WA_DeleteOnClose, false); // owned here
    m_remote->resize(m_window.size());
    m_remote->show();
    auto *deadline = new QTimer(this);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, this, [this] {
        QTextStream(stderr) << "brokerdesk: the remote window did not connect to the sample broker\n";
        m_remote.reset();
        QCoreApplication::exit(1);
    });
    deadline->start(15'000);
    connect(remote, &BrokerConnection::snapshotUpdated, this, [this, deadline] {
        if (!deadline->isActive())
            return;
        deadline->stop();
        // Two more snapshots: rates, the users and errors read after the first.
        QTimer::singleShot(1200, this, [this] {
            QTextStream out(stdout);
            const QString name = QStringLiteral("remote-overview.png");
            bool complete = true;
            for (const QString &dir : {m_outputDir, QDir(m_outputDir).filePath(QStringLiteral("dark"))}) {
                const bool dark = dir != m_outputDir;
                const Ui::Palette::Theme chosen = Ui::Palette::currentTheme();
                if (dark) {
                    Ui::Palette::applyTheme(Ui::Palette::Theme::Dark);
                    QCoreApplication::processEvents();
                }
                const QString path = QDir(dir).filePath(name);
                complete = m_remote->grab().save(path) && complete;
                out << path << '\n';
                if (dark)
                    Ui::Palette::applyTheme(chosen);
            }
            m_remote.reset(); // before the application goes: it owns sockets and a thread
            QCoreApplication::exit(complete ? 0 : 1);
        });
    });
}

ScreenshotSession::~ScreenshotSession() = default;

} // namespace Broker::Desktop
