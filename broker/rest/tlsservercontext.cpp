// SPDX-License-Identifier: GPL-3.0-or-later
#include "tlsservercontext.h"

#include <QString>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <functional>
#include <sys/socket.h>

namespace Broker::Rest {

namespace {

Error refused(const QString &what)
{
    return Error{ErrorCode::InvalidArgument, what};
}

using BioPointer = std::unique_ptr<BIO, decltype(&BIO_free)>;
BioPointer memoryBio(const QByteArray &bytes)
{
    return BioPointer(BIO_new_mem_buf(bytes.constData(), int(bytes.size())), &BIO_free);
}

// A socket BIO that sends with MSG_NOSIGNAL: OpenSSL's own writes with write(2), which raises
// SIGPIPE (and ends the process) when the client has reset the connection.
int socketWrite(BIO *bio, const char *data, int size)
{
    BIO_clear_retry_flags(bio);
    const ssize_t sent = ::send(int(reinterpret_cast<intptr_t>(BIO_get_data(bio))), data, size_t(size), MSG_NOSIGNAL);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(bio);
    return int(sent);
}

int socketRead(BIO *bio, char *data, int size)
{
    BIO_clear_retry_flags(bio);
    const ssize_t got = ::recv(int(reinterpret_cast<intptr_t>(BIO_get_data(bio))), data, size_t(size), 0);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_read(bio);
    return int(got);
}

long socketControl(BIO *, int command, long, void *)
{
    return command == BIO_CTRL_FLUSH ? 1 : 0; // nothing is buffered here
}

int socketCreate(BIO *bio)
{
    BIO_set_init(bio, 1);
    return 1;
}

const BIO_METHOD *socketMethod()
{
    static BIO_METHOD *method = [] {
        BIO_METHOD *made = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "brokerdesk socket");
        BIO_meth_set_write(made, socketWrite);
        BIO_meth_set_read(made, socketRead);
        BIO_meth_set_ctrl(made, socketControl);
        BIO_meth_set_create(made, socketCreate);
        return made;
    }();
    return method;
}

// HTTP/1.1 only: QHttpServer 6.4 speaks nothing else behind the guard.
int selectAlpn(SSL *, const unsigned char **out, unsigned char *outLength, const unsigned char *offered,
               unsigned int offeredLength, void *)
{
    static const unsigned char ours[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char *chosen = nullptr;
    if (SSL_select_next_proto(&chosen, outLength, ours, sizeof ours, offered, offeredLength) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = chosen;
    return SSL_TLSEXT_ERR_OK;
}

// Reads the PEM certificates that follow in `bio`, handing each to `keep` (which owns it from
// then on and says whether it was taken). False when one was not taken or one is damaged: the
// end of the text reads as "no start line", any other error is damage (left for takeTlsError).
bool readCertificates(BIO *bio, int &count, const std::function<bool(X509 *)> &keep)
{
    count = 0;
    while (X509 *certificate = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        if (!keep(certificate))
            return false;
        ++count;
    }
    const unsigned long error = ERR_peek_last_error();
    if (error != 0 && ERR_GET_REASON(error) != PEM_R_NO_START_LINE)
        return false;
    ERR_clear_error();
    return true;
}

} // namespace

QString takeTlsError(const char *fallback)
{
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    const char *reason = code ? ERR_reason_error_string(code) : nullptr;
    return QString::fromLatin1(reason ? reason : fallback);
}

Result<std::shared_ptr<const TlsServerContext>> TlsServerContext::make(const QByteArray &chainPem, const QByteArray &keyPem,
                                                                      const QByteArray &clientCaPem, bool tls13Only)
{
    ERR_clear_error();
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    if (!context)
        return refused(QStringLiteral("api.tls: OpenSSL cannot make a TLS context (%1)").arg(takeTlsError("unknown")));
    std::shared_ptr<const TlsServerContext> made(new TlsServerContext(context));
    SSL_CTX_set_min_proto_version(context, tls13Only ? TLS1_3_VERSION : TLS1_2_VERSION);
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    // Partial writes: a response larger than a record is sent record by record as the peer takes
    // it. Read-ahead: one recv takes whatever has arrived, not a record header and then its body.
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(context, 1);
    // Sessions resume by stateless tickets; a server-side cache would keep up to 20,480 sessions
    // that any client could fill.
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_alpn_select_cb(context, selectAlpn, nullptr);

    BioPointer chain = memoryBio(chainPem);
    std::unique_ptr<X509, decltype(&X509_free)> leaf(PEM_read_bio_X509(chain.get(), nullptr, nullptr, nullptr), &X509_free);
    if (!leaf || SSL_CTX_use_certificate(context, leaf.get()) != 1)
        return refused(QStringLiteral("api.tls.cert_file: OpenSSL refused the certificate (%1)").arg(takeTlsError("unknown")));
    int intermediates = 0;
    const bool chainRead = readCertificates(chain.get(), intermediates, [context](X509 *intermediate) {
        if (SSL_CTX_add0_chain_cert(context, intermediate) == 1)
            return true; // the context owns it now
        X509_free(intermediate);
        return false;
    });
    if (!chainRead)
        return refused(QStringLiteral("api.tls.cert_file: OpenSSL refused a chain certificate (%1)").arg(takeTlsError("unknown")));

    BioPointer keyBio = memoryBio(keyPem);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, nullptr),
                                                            &EVP_PKEY_free);
    if (!key || SSL_CTX_use_PrivateKey(context, key.get()) != 1 || SSL_CTX_check_private_key(context) != 1)
        return refused(QStringLiteral("api.tls.key_file: OpenSSL refused the key (%1)").arg(takeTlsError("unknown")));

    if (!clientCaPem.isEmpty()) {
        X509_STORE *store = SSL_CTX_get_cert_store(context);
        BioPointer authorities = memoryBio(clientCaPem);
        int count = 0;
        const bool authoritiesRead = readCertificates(authorities.get(), count, [store, context](X509 *authority) {
            const bool kept = X509_STORE_add_cert(store, authority) == 1 && SSL_CTX_add_client_CA(context, authority) == 1;
            X509_free(authority); // both take references of their own
            return kept;
        });
        if (!authoritiesRead)
            return refused(QStringLiteral("api.tls.client_ca_file: OpenSSL refused a certificate (%1)").arg(takeTlsError("unknown")));
        if (count == 0)
            return refused(QStringLiteral("api.tls.client_ca_file: no PEM certificate in the file"));
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
        // Resumed sessions are tied to this server's verification settings.
        static const unsigned char sessionContext[] = "brokerdesk-api";
        SSL_CTX_set_session_id_context(context, sessionContext, sizeof sessionContext - 1);
    } else {
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nullptr); // no client certificate is asked for
    }
    return made;
}

TlsServerContext::~TlsServerContext()
{
    SSL_CTX_free(m_context);
}

SSL *TlsServerContext::newConnection(int fd) const
{
    SSL *connection = SSL_new(m_context);
    if (!connection)
        return nullptr;
    BIO *bio = BIO_new(socketMethod());
    if (!bio) {
        SSL_free(connection);
        return nullptr;
    }
    BIO_set_data(bio, reinterpret_cast<void *>(intptr_t(fd)));
    SSL_set_bio(connection, bio, bio); // one BIO both ways: SSL_free frees it once
    SSL_set_accept_state(connection);
    return connection;
}

} // namespace Broker::Rest
