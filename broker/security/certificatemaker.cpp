// SPDX-License-Identifier: GPL-3.0-or-later
#include "certificatemaker.h"

#include <QDir>
#include <QFileInfo>
#include <QHostAddress>
#include <QSaveFile>
#include <QSysInfo>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace Broker {

namespace {

// Every OpenSSL object is owned by one of these, so that each path frees what it made.
struct OpenSslFree
{
    void operator()(EVP_PKEY *p) const { EVP_PKEY_free(p); }
    void operator()(X509 *p) const { X509_free(p); }
    void operator()(X509_EXTENSION *p) const { X509_EXTENSION_free(p); }
    void operator()(BIO *p) const { BIO_free(p); }
    void operator()(BIGNUM *p) const { BN_free(p); }
};
template<typename T>
using Owned = std::unique_ptr<T, OpenSslFree>;

Error failure(const QString &what)
{
    // The OpenSSL queue says why; it is emptied so that a later call does not report it again.
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    QString text = what;
    if (code != 0) {
        char reason[256];
        ERR_error_string_n(code, reason, sizeof reason);
        text += QStringLiteral(" (%1)").arg(QString::fromLatin1(reason));
    }
    return Error(ErrorCode::Internal, text);
}

Owned<EVP_PKEY> newP256Key()
{
    return Owned<EVP_PKEY>(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
}

// "DNS:name" or "IP:address" for the subjectAltName extension. Host names are checked here,
// since the extension is written in OpenSSL's config syntax, where ',' would start another name.
bool subjectAltName(const QString &host, QString &entry)
{
    QHostAddress address;
    if (address.setAddress(host)) {
        entry = QStringLiteral("IP:") + address.toString();
        return true;
    }
    static const QString allowed = QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_");
    if (host.isEmpty() || host.size() > 253 || host.startsWith(u'.') || host.startsWith(u'-'))
        return false;
    for (const QChar c : host) {
        if (!allowed.contains(c))
            return false;
    }
    entry = QStringLiteral("DNS:") + host;
    return true;
}

bool addExtension(X509 *cert, X509 *issuer, int nid, const QString &value)
{
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
    const QByteArray text = value.toLatin1();
    Owned<X509_EXTENSION> extension(X509V3_EXT_conf_nid(nullptr, &context, nid, text.constData()));
    return extension && X509_add_ext(cert, extension.get(), -1) == 1;
}

// A certificate for `key`, with `commonName`, valid from an hour ago (clocks on a LAN disagree)
// for `days`, and a random positive 128-bit serial. Extensions and the signature come later.
Owned<X509> newCertificate(EVP_PKEY *key, const QString &commonName, int days)
{
    Owned<X509> cert(X509_new());
    unsigned char serial[16];
    if (!cert || RAND_bytes(serial, sizeof serial) != 1)
        return nullptr;
    serial[0] &= 0x7f; // positive, as RFC 5280 asks
    Owned<BIGNUM> number(BN_bin2bn(serial, sizeof serial, nullptr));
    const QByteArray organisation = QByteArrayLiteral("BrokerDesk");
    const QByteArray name = commonName.toUtf8();
    X509_NAME *subject = X509_get_subject_name(cert.get());
    if (!number || X509_set_version(cert.get(), X509_VERSION_3) != 1
        || !BN_to_ASN1_INTEGER(number.get(), X509_get_serialNumber(cert.get()))
        || !X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600)
        || !X509_time_adj_ex(X509_getm_notAfter(cert.get()), days, 0, nullptr)
        || X509_set_pubkey(cert.get(), key) != 1
        || X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8,
                                      reinterpret_cast<const unsigned char *>(organisation.constData()), -1, -1, 0) != 1
        || X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                                      reinterpret_cast<const unsigned char *>(name.constData()), -1, -1, 0) != 1)
        return nullptr;
    return cert;
}

QByteArray bioBytes(BIO *bio)
{
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    return QByteArray(data, qsizetype(size));
}

QByteArray certificatePem(X509 *cert)
{
    Owned<BIO> bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1)
        return {};
    return bioBytes(bio.get());
}

QString fingerprintOf(X509 *cert)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (X509_digest(cert, EVP_sha256(), digest, &size) != 1)
        return {};
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(digest), int(size)).toHex(':').toUpper());
}

// Writes `content` to `path` through a temporary file renamed into place, so that a reader never
// sees half a file; the mode is set before a byte is written.
Result<void> writeAtomically(const QString &path, const QByteArray &content, QFileDevice::Permissions mode)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error(ErrorCode::Unavailable, QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    if (!file.setPermissions(mode) || file.write(content) != content.size() || !file.commit())
        return Error(ErrorCode::Unavailable, QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

} // namespace

QStringList CertificateMaker::defaultHosts()
{
    QStringList hosts{QStringLiteral("localhost"), QStringLiteral("127.0.0.1"), QStringLiteral("::1")};
    const QString machine = QSysInfo::machineHostName();
    if (!machine.isEmpty() && !hosts.contains(machine))
        hosts.append(machine);
    return hosts;
}

QString CertificateMaker::configSnippet(const MadeCertificate &made)
{
    return QStringLiteral("api:\n  tls:\n    enabled: true\n    cert_file: %1\n    key_file: %2\n")
        .arg(made.certFile, made.keyFile);
}

Result<MadeCertificate> CertificateMaker::make(const CertificateRequest &request)
{
    MadeCertificate made;
    made.hosts = request.hosts.isEmpty() ? defaultHosts() : request.hosts;
    QStringList names;
    for (const QString &host : std::as_const(made.hosts)) {
        QString entry;
        if (!subjectAltName(host, entry))
            return Error(ErrorCode::InvalidArgument,
                         QStringLiteral("'%1' is neither a host name nor an IP address").arg(host));
        names.append(entry);
    }
    if (request.validityDays < 1)
        return Error(ErrorCode::InvalidArgument, QStringLiteral("the validity must be at least one day"));

    const QString directory = QDir(request.directory).absolutePath();
    made.caFile = directory + QStringLiteral("/ca.crt");
    made.certFile = directory + QStringLiteral("/server.crt");
    made.keyFile = directory + QStringLiteral("/server.key");
    if (!request.force) {
        for (const QString &path : {made.caFile, made.certFile, made.keyFile}) {
            if (QFileInfo::exists(path))
                return Error(ErrorCode::Conflict, QStringLiteral("%1 exists already").arg(path));
        }
    }
    if (!QFileInfo(directory).isDir()) {
        if (!QDir().mkpath(directory))
            return Error(ErrorCode::Unavailable, QStringLiteral("cannot create the folder %1").arg(directory));
        // Only the owner may look in a folder made to hold a private key.
        QFile::setPermissions(directory, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }

    // The one-off CA. Its key lives only in this function.
    const Owned<EVP_PKEY> caKey = newP256Key();
    if (!caKey)
        return failure(QStringLiteral("cannot make an EC P-256 key"));
    const Owned<X509> ca = newCertificate(caKey.get(), QStringLiteral("BrokerDesk local CA"), request.validityDays);
    if (!ca || X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) != 1
        || !addExtension(ca.get(), ca.get(), NID_basic_constraints, QStringLiteral("critical,CA:TRUE,pathlen:0"))
        || !addExtension(ca.get(), ca.get(), NID_key_usage, QStringLiteral("critical,keyCertSign,cRLSign"))
        || !addExtension(ca.get(), ca.get(), NID_subject_key_identifier, QStringLiteral("hash"))
        || X509_sign(ca.get(), caKey.get(), EVP_sha256()) <= 0)
        return failure(QStringLiteral("cannot make the CA certificate"));

    // The server certificate, signed by the CA.
    const Owned<EVP_PKEY> key = newP256Key();
    if (!key)
        return failure(QStringLiteral("cannot make an EC P-256 key"));
    const Owned<X509> leaf = newCertificate(key.get(), made.hosts.first(), request.validityDays);
    if (!leaf || X509_set_issuer_name(leaf.get(), X509_get_subject_name(ca.get())) != 1
        || !addExtension(leaf.get(), ca.get(), NID_basic_constraints, QStringLiteral("critical,CA:FALSE"))
        || !addExtension(leaf.get(), ca.get(), NID_key_usage, QStringLiteral("critical,digitalSignature"))
        || !addExtension(leaf.get(), ca.get(), NID_ext_key_usage, QStringLiteral("serverAuth"))
        || !addExtension(leaf.get(), ca.get(), NID_subject_key_identifier, QStringLiteral("hash"))
        || !addExtension(leaf.get(), ca.get(), NID_authority_key_identifier, QStringLiteral("keyid:always"))
        || !addExtension(leaf.get(), ca.get(), NID_subject_alt_name, names.join(u','))
        || X509_sign(leaf.get(), caKey.get(), EVP_sha256()) <= 0)
        return failure(QStringLiteral("cannot make the server certificate"));

    const QByteArray caPem = certificatePem(ca.get());
    const QByteArray leafPem = certificatePem(leaf.get());
    Owned<BIO> keyBio(BIO_new(BIO_s_mem()));
    if (caPem.isEmpty() || leafPem.isEmpty() || !keyBio
        || PEM_write_bio_PKCS8PrivateKey(keyBio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return failure(QStringLiteral("cannot encode the certificates as PEM"));
    made.fingerprint = fingerprintOf(leaf.get());

    QByteArray keyPem = bioBytes(keyBio.get());
    // The key first: a certificate without its key is of no use, the reverse would be worse to leave behind.
    Result<void> written = writeAtomically(made.keyFile, keyPem, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    OPENSSL_cleanse(keyPem.data(), size_t(keyPem.size()));
    const auto readable = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther;
    if (written)
        written = writeAtomically(made.certFile, leafPem + caPem, readable);
    if (written)
        written = writeAtomically(made.caFile, caPem, readable);
    if (!written)
        return written.error();
    return made;
}

} // namespace Broker
