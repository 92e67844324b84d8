// SPDX-License-Identifier: GPL-3.0-or-later
// brokerdesk: the desktop app. The broker (engine, store, REST API) runs in a worker thread
// owned by BrokerClient; the window shows it live.
#include "screenshots.h"
#include "singleinstance.h"

#include "runtime/brokerclient.h"
#include "runtime/continuation.h"
#include "runtime/desktopconfig.h"
#include "runtime/unixsignals.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextStream>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr auto AppId = "io.github.brokerdesk.BrokerDesk";

// Qt aborts when it cannot reach a display; say so plainly first, and name the headless broker.
bool displayAvailable(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (qstrcmp(argv[i], "-platform") == 0)
            return true;
    }
    return qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || qEnvironmentVariableIsSet("DISPLAY")
        || qEnvironmentVariableIsSet("WAYLAND_DISPLAY");
}

} // namespace

// Options that need no display: asked without one, they are answered and nothing else happens.
bool asksOnlyVersionOrHelp(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArrayView arg(argv[i]);
        if (arg == "--version" || arg == "-v" || arg == "--help" || arg == "-h" || arg == "--help-all")
            return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    if (!displayAvailable(argc, argv) && asksOnlyVersionOrHelp(argc, argv))
        qputenv("QT_QPA_PLATFORM", "offscreen"); // QCommandLineParser answers; no window is shown
    if (!displayAvailable(argc, argv)) {
        std::fputs("brokerdesk: no graphical display here (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                   "The headless broker serves the same API without a window:\n"
                   "  brokerd --config /etc/brokerd/message_broker.yaml   (installed package)\n"
                   "  build/app/brokerd --config config/message_broker.yaml   (source tree)\n"
                   "or run brokerdesk under a display (ssh -X, or xvfb-run for a virtual one).\n",
                   stderr);
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("brokerdesk"));
    QApplication::setApplicationName(QStringLiteral("brokerdesk"));
    QApplication::setApplicationDisplayName(QStringLiteral("BrokerDesk"));
    QApplication::setApplicationVersion(QStringLiteral(BROKER_VERSION));
    QGuiApplication::setDesktopFileName(QString::fromLatin1(AppId));
    // The installed theme icon first; else the PNGs compiled in (no SVG renderer needed).
    QIcon icon;
    for (const int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/hicolor/%1x%1/brokerdesk.png").arg(size));
    QApplication::setWindowIcon(QIcon::fromTheme(QString::fromLatin1(AppId), icon));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("BrokerDesk: a message broker with a live admin UI"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption configOption(QStringLiteral("config"),
                                          QStringLiteral("Configuration file (default: ~/.config/brokerdesk/message_broker.yaml, made on first run)."),
                                          QStringLiteral("file"));
    const QCommandLineOption portOption(QStringLiteral("port"), QStringLiteral("Serve the API on this port (0: any free port)."),
                                        QStringLiteral("port"));
    const QCommandLineOption screenshotsOption(
        QStringLiteral("screenshots"),
        QStringLiteral("Fill a throw-away broker with sample data, render every page to DIR/<page>.png, and exit."),
        QStringLiteral("dir"));
    parser.addOptions({configOption, portOption, screenshotsOption});
    parser.process(app);

    Broker::HostSettings settings;
    settings.createUsersFile = true;
    QTemporaryDir sampleDir;
    const bool screenshots = parser.isSet(screenshotsOption);
    if (screenshots) {
        settings.configFile = sampleDir.filePath(QStringLiteral("message_broker.yaml"));
        QFile file(settings.configFile);
        // A processor that takes two seconds per order, so that the queue detail shows one at work.
        const QByteArray sample = "api: {bind: 127.0.0.1, port: 0}\n"
                                  "processors:\n"
                                  "  - {queue: orders, type: exec, name: fulfil, command: [/bin/sh, -c, 'sleep 2'],\n"
                                  "     concurrency: 2, timeout_ms: 10000}\n";
        if (!file.open(QIODevice::WriteOnly) || file.write(sample) < 0)
            return 1;
    } else {
        const Broker::Result<QString> config = Broker::desktopConfigFile(parser.value(configOption));
        if (!config) {
            QTextStream(stderr) << "brokerdesk: " << config.error().message << '\n';
            return 3;
        }
        settings.configFile = *config;
    }
    if (parser.isSet(portOption)) {
        bool ok = false;
        settings.portOverride = parser.value(portOption).toInt(&ok);
        if (!ok || settings.portOverride < 0 || settings.portOverride > 65535) {
            QTextStream(stderr) << "brokerdesk: --port wants a number from 0 to 65535\n";
            return 2;
        }
    }

    Broker::Desktop::SingleInstance instance(settings.configFile);
    if (!screenshots) {
        if (instance.handOverToRunning())
            return 0; // the running window came to the front
        instance.listen();
    }

    Broker::BrokerClient client;
    Broker::Ui::MainWindow window(client, settings);
    QObject::connect(&instance, &Broker::Desktop::SingleInstance::activationRequested, &window, [&window] {
        window.showNormal();
        window.raise();
        window.activateWindow();
    });

    if (screenshots) {
        window.resize(1180, 760);
        window.show();
        auto *session = new Broker::Desktop::ScreenshotSession(client, window, parser.value(screenshotsOption), &app);
        Broker::whenFinished(client.start(settings), &window, [session, &window](const Broker::StartReport &report) {
            window.showStartReport(report, false);
            session->run(report);
        });
        return app.exec();
    }
    // SIGTERM/SIGINT (logout, Ctrl+C in a terminal) end the app like closing its window: the
    // window state is saved and the broker answers what is in progress before it stops.
    UnixSignals signals_;
    QObject::connect(&signals_, &UnixSignals::terminationRequested, &window, [&window] {
        window.close();
        QCoreApplication::quit();
    });
    window.show();
    window.startBroker();
    return app.exec();
}
