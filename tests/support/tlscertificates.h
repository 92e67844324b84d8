// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Throw-away certificates for TLS tests, made with the openssl command-line tool in a temporary
// directory: a CA, a server certificate it signed for 127.0.0.1 and localhost, a client certificate
// it signed (mutual TLS), and a second, unrelated CA that vouches for nobody here. EC P-256 keys:
// quick to make. Valid for two days.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace Broker::Testing {

class TlsCertificates
{
public:
    static bool available() { return !QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty(); }

    // Makes them all; false (errorString() says why) when openssl is missing or fails.
    bool make()
    {
        if (!available()) {
            m_error = QStringLiteral("the openssl command is not installed (Debian package openssl)");
            return false;
        }
        return writeFile("server.ext", "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                                       "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n")
            && writeFile("client.ext", "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                                       "extendedKeyUsage=clientAuth\n")
            && makeAuthority("ca", "BrokerDesk test CA") && makeAuthority("other-ca", "Unrelated test CA")
            && makeSigned("server", "redis.test", "server.ext") && makeSigned("client", "brokerd.test", "client.ext");
    }

    QString caFile() const { return path("ca.crt"); }
    QString otherCaFile() const { return path("other-ca.crt"); }
    QString serverCertFile() const { return path("server.crt"); }
    QString serverKeyFile() const { return path("server.key"); }
    QString clientCertFile() const { return path("client.crt"); }
    QString clientKeyFile() const { return path("client.key"); }
    QString directory() const { return m_dir.path(); }
    QString errorString() const { return m_error; }

    QString path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private:
    bool writeFile(const char *name, const QByteArray &text)
    {
        QFile file(path(name));
        if (file.open(QIODevice::WriteOnly) && file.write(text) == text.size())
            return true;
        m_error = QStringLiteral("cannot write %1").arg(file.fileName());
        return false;
    }

    bool openssl(const QStringList &args)
    {
        QProcess process;
        process.setWorkingDirectory(m_dir.path());
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(QStringLiteral("openssl"), args);
        if (process.waitForFinished(30'000) && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0)
            return true;
        m_error = QStringLiteral("openssl %1: %2").arg(args.join(u' '), QString::fromLocal8Bit(process.readAll()));
        return false;
    }

    static QStringList newKey(const QString &name)
    {
        return {QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"), QStringLiteral("-keyout"),
                name + QStringLiteral(".key")};
    }

    bool makeAuthority(const QString &name, const QString &commonName)
    {
        return openssl(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + newKey(name)
                       + QStringList{QStringLiteral("-out"), name + QStringLiteral(".crt"), QStringLiteral("-days"),
                                     QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=") + commonName,
                                     QStringLiteral("-addext"), QStringLiteral("basicConstraints=critical,CA:TRUE"),
                                     QStringLiteral("-addext"), QStringLiteral("keyUsage=critical,keyCertSign,cRLSign")});
    }

    bool makeSigned(const QString &name, const QString &commonName, const QString &extensions)
    {
        return openssl(QStringList{QStringLiteral("req")} + newKey(name)
                       + QStringList{QStringLiteral("-out"), name + QStringLiteral(".csr"), QStringLiteral("-subj"),
                                     QStringLiteral("/CN=") + commonName})
            && openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), name + QStringLiteral(".csr"),
                        QStringLiteral("-CA"), QStringLiteral("ca.crt"), QStringLiteral("-CAkey"), QStringLiteral("ca.key"),
                        QStringLiteral("-CAcreateserial"), QStringLiteral("-days"), QStringLiteral("2"),
                        QStringLiteral("-extfile"), extensions, QStringLiteral("-out"), name + QStringLiteral(".crt")});
    }

    QTemporaryDir m_dir;
    QString m_error;
};

} // namespace Broker::Testing
