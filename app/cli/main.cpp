// SPDX-License-Identifier: GPL-3.0-or-later
// brokerctl: the command-line client of a BrokerDesk broker (HTTP only; no engine code).

#include "apiclient.h"
#include "commands.h"
#include "options.h"
#include "output.h"
#include "profiles.h"
#include "shell.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QProcessEnvironment>
#include <QSslCertificate>

#include <cstdio>
#include <optional>
#include <unistd.h>

using namespace BrokerCtl;

namespace {

// Reads a whole number of seconds (or fraction) from the environment; `fallbackMs` when unset.
// A duration from the environment in `unitMs` units (gCore's client: TIMEOUT in seconds,
// RETRY_DELAY in milliseconds), at most an hour.
bool durationFromEnvironment(const QProcessEnvironment &env, const char *name, double unitMs, int &outMs)
{
    const QString value = env.value(QString::fromLatin1(name));
    if (value.isEmpty())
        return true;
    bool ok = false;
    const double ms = value.toDouble(&ok) * unitMs;
    if (!ok || ms < 0 || ms > 3'600'000)
        return false;
    outMs = int(ms);
    return true;
}

// The CA certificates of a PEM file; false with `error` when it cannot be read or holds none.
bool loadCaCertificates(const QString &path, QList<QSslCertificate> &certificates, QString &error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("cannot read the CA file %1: %2").arg(path, file.errorString());
        return false;
    }
    certificates = QSslCertificate::fromData(file.readAll(), QSsl::Pem);
    if (certificates.isEmpty()) {
        error = QStringLiteral("%1 holds no PEM certificate (-----BEGIN CERTIFICATE-----)").arg(path);
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("brokerctl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(BROKER_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Command-line client of a BrokerDesk broker.\n\n")
                                     + Commands::usage());
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("What to do (see above)."));
    const auto valueOption = [&](const char *name, const char *help, const char *valueName) {
        parser.addOption(QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help),
                                            QString::fromLatin1(valueName)));
    };
    valueOption("profile", "A saved connection (BROKERCTL_PROFILE; see 'profiles list').", "NAME");
    valueOption("api-key-file", "File holding the API key (else API_KEY).", "FILE");
    valueOption("api-key", "The API key itself (visible to other users of this machine; prefer the file).", "KEY");
    defineCommandOptions(parser);

    if (!parser.parse(QCoreApplication::arguments())) {
        std::fprintf(stderr, "brokerctl: %s\nTry 'brokerctl --help'.\n", qPrintable(parser.errorText()));
        return UsageError;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::printf("%s", qPrintable(parser.helpText()));
        return Ok;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        std::printf("brokerctl %s\n", BROKER_VERSION);
        return Ok;
    }
    const QStringList words = parser.positionalArguments();
    if (words.value(0) == u"help") {
        std::printf("%s\n", qPrintable(Commands::usage()));
        return Ok;
    }
    // No command on a terminal, or "shell": the interactive mode.
    const bool shell = words.value(0) == u"shell" || (words.isEmpty() && ::isatty(STDIN_FILENO));
    if (words.isEmpty() && !shell) {
        std::fprintf(stderr, "brokerctl: no command given\n%s\n", qPrintable(Commands::usage()));
        return UsageError;
    }

    // Where to connect and with which key: the command line, else the profile, else API_URL/API_KEY.
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString profileName = parser.isSet(QStringLiteral("profile"))
        ? parser.value(QStringLiteral("profile"))
        : env.value(QStringLiteral("BROKERCTL_PROFILE"));
    std::optional<Profile> profile;
    if (!profileName.isEmpty()) {
        QString error;
        for (const Profile &saved : Profiles::load(Profiles::configPath(), &error)) {
            if (saved.name == profileName)
                profile = saved;
        }
        if (!error.isEmpty() || !profile) {
            std::fprintf(stderr, "brokerctl: %s\n",
                         qPrintable(error.isEmpty()
                                        ? QStringLiteral("no profile '%1' in %2 ('brokerctl profiles list')")
                                              .arg(profileName, Profiles::configPath())
                                        : error));
            return UsageError;
        }
    }
    ClientSettings settings;
    const QString url = parser.isSet(QStringLiteral("url")) ? parser.value(QStringLiteral("url"))
        : profile                                           ? profile->url
                                                            : env.value(QStringLiteral("API_URL"));
    if (!url.isEmpty()) {
        settings.url = QUrl(url);
        if (!settings.url.isValid() || (settings.url.scheme() != u"http" && settings.url.scheme() != u"https")) {
            std::fprintf(stderr, "brokerctl: not an http(s) URL: %s\n", qPrintable(url));
            return UsageError;
        }
    }
    if (parser.isSet(QStringLiteral("api-key-file"))) {
        QFile file(parser.value(QStringLiteral("api-key-file")));
        if (!file.open(QIODevice::ReadOnly)) {
            std::fprintf(stderr, "brokerctl: cannot read %s: %s\n", qPrintable(file.fileName()),
                         qPrintable(file.errorString()));
            return UsageError;
        }
        settings.apiKey = file.readAll().trimmed();
    } else if (parser.isSet(QStringLiteral("api-key"))) {
        std::fprintf(stderr,
                     "brokerctl: warning: a key on the command line is visible to other users; use --api-key-file, a "
                     "profile or API_KEY\n");
        settings.apiKey = parser.value(QStringLiteral("api-key")).toUtf8();
    } else if (profile && (!profile->keyFile.isEmpty() || !profile->keyCommand.isEmpty())) {
        QString error;
        if (!Profiles::readKey(*profile, settings.apiKey, &error)) {
            std::fprintf(stderr, "brokerctl: %s\n", qPrintable(error));
            return UsageError;
        }
    } else {
        settings.apiKey = env.value(QStringLiteral("API_KEY")).toUtf8();
    }
    // Whom to trust over https: --cacert, else the profile's CA, else API_CACERT, else the system's CAs.
    const QString caFile = parser.isSet(QStringLiteral("cacert")) ? parser.value(QStringLiteral("cacert"))
        : profile && !profile->caFile.isEmpty()                     ? Profiles::resolvedCaFile(*profile)
                                                                    : env.value(QStringLiteral("API_CACERT"));
    settings.insecure = parser.isSet(QStringLiteral("insecure")) || (profile && profile->insecure);
    if (!caFile.isEmpty() && !settings.insecure) {
        QString error;
        if (!loadCaCertificates(caFile, settings.caCertificates, error)) {
            std::fprintf(stderr, "brokerctl: %s\n", qPrintable(error));
            return UsageError;
        }
    }
    if (settings.insecure && settings.url.scheme() == u"https")
        std::fprintf(stderr, "brokerctl: warning: --insecure: the certificate of %s is not verified; anyone on the "
                             "way can read and change what is sent, the API key too\n",
                     qPrintable(settings.url.authority()));
    bool ok = durationFromEnvironment(env, "TIMEOUT", 1000, settings.timeoutMs)
        && durationFromEnvironment(env, "RETRY_DELAY", 1, settings.retryDelayMs);
    if (env.contains(QStringLiteral("RETRY_ATTEMPTS"))) {
        settings.retryAttempts = env.value(QStringLiteral("RETRY_ATTEMPTS")).toInt(&ok);
        ok = ok && settings.retryAttempts >= 0 && settings.retryAttempts <= 20;
    }
    if (!ok) {
        std::fprintf(stderr,
                     "brokerctl: TIMEOUT (seconds), RETRY_DELAY (milliseconds) or RETRY_ATTEMPTS (0-20) is not a valid number\n");
        return UsageError;
    }

    Output::Format format = ::isatty(STDOUT_FILENO) ? Output::Format::Table : Output::Format::Json;
    if (parser.isSet(QStringLiteral("output"))
        && !Output::parseFormat(parser.value(QStringLiteral("output")), format)) {
        std::fprintf(stderr, "brokerctl: --output is table, text or json\n");
        return UsageError;
    }

    ApiClient client(settings);
    if (shell)
        return Shell(client, format).run();
    const Output output(format);
    int exitCode = Ok;
    Commands commands(client, output, parser, [&](int code) {
        exitCode = code;
        QCoreApplication::exit(code);
    });
    QMetaObject::invokeMethod(
        &commands, [&] { commands.run(words); }, Qt::QueuedConnection);
    app.exec();
    return exitCode;
}
