// SPDX-License-Identifier: GPL-3.0-or-later
// brokerd: the headless broker. Thin on purpose: BrokerHost does the work.

#include "runtime/unixsignals.h"

#include "errors/logging.h"
#include "runtime/brokerhost.h"
#include "security/certificatemaker.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTimer>

#include <cstdio>

namespace {

// Exit codes, documented in --help.
enum ExitCode { Ok = 0, Failure = 1, UsageError = 2, ConfigError = 3, UsersError = 4, StorageError = 5, ListenError = 6 };

const char *ExitCodeHelp = "Exit codes: 0 stopped cleanly, 1 --make-cert failed, 2 usage error, 3 bad configuration, "
                           "4 users file unreadable or invalid, 5 storage unavailable, "
                           "6 cannot listen (port in use, address not available).";

// --make-cert: a self-signed certificate (security/certificatemaker.h), then exit.
int makeCertificate(const Broker::CertificateRequest &request)
{
    const Broker::Result<Broker::MadeCertificate> made = Broker::CertificateMaker::make(request);
    if (!made) {
        const bool exists = made.error().code == Broker::ErrorCode::Conflict;
        std::fprintf(stderr, "brokerd: %s%s\n", qPrintable(made.error().message), exists ? " (--force replaces it)" : "");
        return made.error().code == Broker::ErrorCode::InvalidArgument ? UsageError : Failure;
    }
    std::printf("CA certificate (clients trust it: brokerctl --cacert, curl --cacert): %s\n"
                "Server certificate (for %s): %s\n"
                "Server key (keep it secret): %s\n"
                "SHA-256 fingerprint of the server certificate: %s\n"
                "The CA's key was not kept: no other certificate can be signed with it.\n\n"
                "Add to message_broker.yaml:\n%s",
                qPrintable(made->caFile), qPrintable(made->hosts.join(QStringLiteral(", "))),
                qPrintable(made->certFile), qPrintable(made->keyFile), qPrintable(made->fingerprint),
                qPrintable(Broker::CertificateMaker::configSnippet(*made)));
    return Ok;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("brokerd"));
    QCoreApplication::setApplicationVersion(QStringLiteral(BROKER_VERSION));
    qSetMessagePattern(QStringLiteral("%{time yyyy-MM-ddThh:mm:ss.zzz} %{if-warning}warning %{endif}"
                                      "%{if-critical}error %{endif}%{category}: %{message}"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("BrokerDesk headless message broker.\n") + QLatin1StringView(ExitCodeHelp));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption configOption({QStringLiteral("c"), QStringLiteral("config")},
                                          QStringLiteral("Broker configuration (message_broker.yaml)."),
                                          QStringLiteral("FILE"));
    const QCommandLineOption usersOption({QStringLiteral("u"), QStringLiteral("users")},
                                         QStringLiteral("Users and API keys (users.yaml); default: security.users_file."),
                                         QStringLiteral("FILE"));
    const QCommandLineOption bindOption(QStringLiteral("bind"), QStringLiteral("Listen address (default: api.bind)."),
                                        QStringLiteral("ADDR"));
    const QCommandLineOption portOption(QStringLiteral("port"),
                                        QStringLiteral("Listen port, 0 for any free one (default: api.port)."),
                                        QStringLiteral("N"));
    const QCommandLineOption checkOption(QStringLiteral("check"),
                                         QStringLiteral("Load configuration and users, report problems, and exit."));
    const QCommandLineOption repairOption(QStringLiteral("repair-journal"),
                                          QStringLiteral("Rewrite a damaged journal keeping every intact record (the "
                                                         "original is kept as FILE.damaged), and exit."),
                                          QStringLiteral("FILE"));
    const QCommandLineOption makeCertOption(
        QStringLiteral("make-cert"),
        QStringLiteral("Write a self-signed certificate for the API to DIR (ca.crt, server.crt, server.key), and exit."),
        QStringLiteral("DIR"));
    const QCommandLineOption hostOption(
        QStringLiteral("host"),
        QStringLiteral("--make-cert: a host name or IP address the certificate is for; repeatable (default: "
                       "localhost, 127.0.0.1, ::1 and this machine's name)."),
        QStringLiteral("NAME"));
    const QCommandLineOption forceOption(QStringLiteral("force"),
                                         QStringLiteral("--make-cert: replace the files when they exist."));
    parser.addOptions({configOption, usersOption, bindOption, portOption, checkOption, repairOption, makeCertOption,
                       hostOption, forceOption});
    if (!parser.parse(QCoreApplication::arguments())) {
        std::fprintf(stderr, "brokerd: %s\nTry 'brokerd --help'.\n", qPrintable(parser.errorText()));
        return UsageError;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::printf("%s", qPrintable(parser.helpText()));
        return Ok;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        std::printf("brokerd %s\n", BROKER_VERSION);
        return Ok;
    }
    if (parser.isSet(repairOption)) {
        const Broker::Result<QStringList> report = Broker::BrokerHost::repairJournal(parser.value(repairOption));
        if (!report) {
            std::fprintf(stderr, "brokerd: %s\n", qPrintable(report.error().message));
            return StorageError;
        }
        for (const QString &line : *report)
            std::printf("%s\n", qPrintable(line));
        return Ok;
    }
    if (parser.isSet(makeCertOption)) {
        if (!parser.positionalArguments().isEmpty() || parser.value(makeCertOption).isEmpty()) {
            std::fprintf(stderr, "brokerd: usage: brokerd --make-cert DIR [--host NAME ...] [--force]\n");
            return UsageError;
        }
        return makeCertificate({parser.value(makeCertOption), parser.values(hostOption), parser.isSet(forceOption)});
    }
    if (parser.isSet(hostOption) || parser.isSet(forceOption)) {
        std::fprintf(stderr, "brokerd: --host and --force go with --make-cert\nTry 'brokerd --help'.\n");
        return UsageError;
    }
    if (!parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "brokerd: unexpected argument '%s'\nTry 'brokerd --help'.\n",
                     qPrintable(parser.positionalArguments().first()));
        return UsageError;
    }

    Broker::HostSettings settings;
    settings.configFile = parser.value(configOption);
    settings.usersFile = parser.value(usersOption);
    settings.bindOverride = parser.value(bindOption);
    settings.serveApi = !parser.isSet(checkOption);
    if (parser.isSet(portOption)) {
        bool ok = false;
        settings.portOverride = parser.value(portOption).toInt(&ok);
        if (!ok || settings.portOverride < 0 || settings.portOverride > 65535) {
            std::fprintf(stderr, "brokerd: --port expects a number from 0 to 65535\n");
            return UsageError;
        }
    }

    Broker::BrokerHost host;
    const Broker::Result<void> started = host.start(settings);
    for (const QString &warning : host.configWarnings())
        qCWarning(lcConfig).noquote() << warning;
    if (!started) {
        std::fprintf(stderr, "brokerd: %s\n", qPrintable(started.error().message));
        switch (host.failedStage()) {
        case Broker::StartStage::Config: return ConfigError;
        case Broker::StartStage::Users: return UsersError;
        case Broker::StartStage::Storage: return StorageError;
        case Broker::StartStage::Listen: return ListenError;
        }
    }
    if (!host.issuedKeys().isEmpty()) {
        // Shown this once: only hashes were written to the users file.
        std::printf("New API keys (shown once; %s now holds only their hashes):\n", qPrintable(host.usersFile()));
        for (const Broker::IssuedKey &key : host.issuedKeys())
            std::printf("  %-24s %s\n", qPrintable(key.userId), qPrintable(key.apiKey));
        std::fflush(stdout);
        // Said on the log as well, without the keys: under a service manager standard output may
        // go nowhere (the systemd unit discards it so that keys never reach the journal).
        qCInfo(lcSecurity).noquote() << QStringLiteral("%1 new API keys for %2 were printed on standard output")
                                            .arg(host.issuedKeys().size())
                                            .arg(host.usersFile());
    }
    if (parser.isSet(checkOption)) {
        std::printf("brokerd: configuration and users are valid\n");
        return Ok;
    }

    qCInfo(lcEngine).noquote() << QStringLiteral("brokerd %1 listening on %2: storage %3, %4 users from %5")
                                      .arg(QStringLiteral(BROKER_VERSION), host.apiUrl(), host.storageBackend())
                                      .arg(host.userCount())
                                      .arg(host.usersFile());

    UnixSignals signals_;
    bool stopping = false;
    const auto finish = [&] {
        host.stop();
        app.quit();
    };
    QObject::connect(&host, &Broker::BrokerHost::drained, &app, finish);
    QObject::connect(&signals_, &UnixSignals::terminationRequested, &app, [&](int number) {
        if (stopping) {
            qCInfo(lcEngine) << "signal" << number << "received again: stopping now";
            return finish();
        }
        stopping = true;
        qCInfo(lcEngine) << "signal" << number << "received: finishing requests in progress, then stopping";
        QTimer::singleShot(Broker::BrokerHost::DrainTimeoutMs, &app, finish);
        host.stopAccepting();
    });
    // SIGHUP reloads the API's TLS certificate and key (renewed by certbot or the like); other
    // settings need a restart.
    QObject::connect(&signals_, &UnixSignals::reloadRequested, &app, [&host] {
        if (!host.config().api.tls.enabled) {
            qCInfo(lcEngine) << "SIGHUP: nothing to reload (api.tls is off); restart to apply configuration changes";
            return;
        }
        if (const Broker::Result<void> reloaded = host.reloadTls(); !reloaded)
            qCWarning(lcEngine).noquote() << "SIGHUP:" << reloaded.error().message;
        else
            qCInfo(lcEngine) << "SIGHUP: TLS certificate reloaded; other settings need a restart";
    });
    return app.exec();
}
