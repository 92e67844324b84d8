// SPDX-License-Identifier: GPL-3.0-or-later
#include "tlsidentity.h"

#include <QCryptographicHash>
#include <QFile>
#include <QSslCertificate>
#include <QSslKey>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace Broker::Rest {

namespace {

Error invalid(const QString &what)
{
    return Error{ErrorCode::InvalidArgument, what};
}

Result<QByteArray> readPem(const QString &path, const char *option)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return invalid(QStringLiteral("api.tls.%1: cannot read the file (%2)").arg(QLatin1StringView(option), file.errorString()));
    const QByteArray bytes = file.read(1024 * 1024 + 1);
    if (bytes.size() > 1024 * 1024)
        return invalid(QStringLiteral("api.tls.%1: the file is larger than 1 MiB").arg(QLatin1StringView(option)));
    return bytes;
}

// Whether `keyPem` is the private key of the certificate `certificatePem`. Qt has no way to ask;
// OpenSSL's libcrypto, which Qt's TLS backend uses too, has.
bool keyMatches(const QByteArray &certificatePem, const QByteArray &keyPem)
{
    const auto bio = [](const QByteArray &bytes) {
        return std::unique_ptr<BIO, decltype(&BIO_free)>(BIO_new_mem_buf(bytes.constData(), int(bytes.size())), &BIO_free);
    };
    auto certificateBio = bio(certificatePem);
    auto keyBio = bio(keyPem);
    if (!certificateBio || !keyBio)
        return false;
    std::unique_ptr<X509, decltype(&X509_free)> certificate(PEM_read_bio_X509(certificateBio.get(), nullptr, nullptr, nullptr),
                                                           &X509_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, nullptr),
                                                            &EVP_PKEY_free);
    return certificate && key && X509_check_private_key(certificate.get(), key.get()) == 1;
}

Result<QSslKey> readKey(const QByteArray &pem)
{
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Ec, QSsl::Rsa, QSsl::Dsa}) {
        QSslKey key(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            return key;
    }
    return invalid(QStringLiteral("api.tls.key_file: no unencrypted PEM private key (RSA, EC or DSA) in the file"));
}

} // namespace

Result<TlsIdentity> loadTlsIdentity(const TlsOptions &options)
{
    const Result<QByteArray> chainPem = readPem(options.certFile, "cert_file");
    if (!chainPem)
        return chainPem.error();
    const QList<QSslCertificate> chain = QSslCertificate::fromData(*chainPem, QSsl::Pem);
    if (chain.isEmpty() || chain.first().isNull())
        return invalid(QStringLiteral("api.tls.cert_file: no PEM certificate in the file"));
    const Result<QByteArray> keyPem = readPem(options.keyFile, "key_file");
    if (!keyPem)
        return keyPem.error();
    const Result<QSslKey> key = readKey(*keyPem);
    if (!key)
        return key.error();
    if (!keyMatches(*chainPem, *keyPem))
        return invalid(QStringLiteral("api.tls.key_file: the key is not the private key of the certificate in cert_file"));

    QByteArray caPem;
    if (!options.clientCaFile.isEmpty()) {
        const Result<QByteArray> read = readPem(options.clientCaFile, "client_ca_file");
        if (!read)
            return read.error();
        if (QSslCertificate::fromData(*read, QSsl::Pem).isEmpty())
            return invalid(QStringLiteral("api.tls.client_ca_file: no PEM certificate in the file"));
        caPem = *read;
    }
    Result<std::shared_ptr<const TlsServerContext>> context =
        TlsServerContext::make(*chainPem, *keyPem, caPem, options.minVersion == u"1.3");
    if (!context)
        return context.error();

    TlsIdentity identity;
    identity.context = std::move(*context);
    identity.clientCertificates = !caPem.isEmpty();
    const QSslCertificate &leaf = chain.first();
    identity.notAfter = leaf.expiryDate().toUTC();
    const QStringList names = leaf.subjectInfo(QSslCertificate::CommonName);
    identity.subject = names.isEmpty() ? leaf.subjectAlternativeNames().values().value(0) : names.first();
    identity.sha256Fingerprint = QString::fromLatin1(leaf.digest(QCryptographicHash::Sha256).toHex(':').toUpper());
    return identity;
}

} // namespace Broker::Rest
