// SPDX-License-Identifier: GPL-3.0-or-later
#include "tlsconfiguration.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>

namespace Broker::Redis {

namespace {

Error invalid(const QString &message)
{
    return Error{ErrorCode::InvalidArgument, message};
}

Result<QByteArray> readFile(const char *option, const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return invalid(QStringLiteral("%1 %2: cannot read: %3").arg(QLatin1StringView(option), path, file.errorString()));
    return file.readAll();
}

Result<QList<QSslCertificate>> readCertificates(const char *option, const QString &path)
{
    const Result<QByteArray> data = readFile(option, path);
    if (!data)
        return data.error();
    const QList<QSslCertificate> certificates = QSslCertificate::fromData(*data, QSsl::Pem);
    if (certificates.isEmpty())
        return invalid(QStringLiteral("%1 %2: holds no PEM certificate").arg(QLatin1StringView(option), path));
    return certificates;
}

Result<QSslKey> readKey(const QString &path)
{
    const Result<QByteArray> data = readFile("tls_key_file", path);
    if (!data)
        return data.error();
    // Qt wants the algorithm up front; a PEM block names it, but trying each is simpler than parsing.
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        QSslKey key(*data, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            return key;
    }
    return invalid(QStringLiteral("tls_key_file %1: holds no unencrypted PEM private key (RSA, EC or DSA)").arg(path));
}

} // namespace

QString tlsPeerName(const ConnectionOptions &options)
{
    return options.tlsServerName.isEmpty() ? options.host : options.tlsServerName;
}

Result<QSslConfiguration> tlsConfiguration(const ConnectionOptions &options)
{
    if (!QSslSocket::supportsSsl())
        return invalid(QStringLiteral("tls: this Qt has no working TLS backend (is OpenSSL 3 installed?)"));
    if (options.tlsCertFile.isEmpty() != options.tlsKeyFile.isEmpty())
        return invalid(QStringLiteral("tls_cert_file and tls_key_file go together: give both or neither"));

    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setPeerVerifyMode(QSslSocket::VerifyPeer);
    configuration.setProtocol(QSsl::TlsV1_2OrLater);
    if (!options.tlsCaFile.isEmpty()) {
        Result<QList<QSslCertificate>> authorities = readCertificates("tls_ca_file", options.tlsCaFile);
        if (!authorities)
            return authorities.error();
        // Replaces the system's store: only these authorities may vouch for the server.
        configuration.setCaCertificates(*authorities);
    }
    if (!options.tlsCertFile.isEmpty()) {
        Result<QList<QSslCertificate>> chain = readCertificates("tls_cert_file", options.tlsCertFile);
        if (!chain)
            return chain.error();
        Result<QSslKey> key = readKey(options.tlsKeyFile);
        if (!key)
            return key.error();
        configuration.setLocalCertificateChain(*chain); // the first is ours, the rest its intermediates
        configuration.setPrivateKey(*key);
    }
    return configuration;
}

} // namespace Broker::Redis
