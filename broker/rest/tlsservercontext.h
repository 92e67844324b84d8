// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

#include <memory>

struct ssl_ctx_st;
struct ssl_st;

namespace Broker::Rest {

// The API's TLS server settings as one OpenSSL context, made once per certificate pair and shared
// by every connection it serves (Qt 6.4's QSslSocket made a context, with its key and cipher
// list, for each socket: about 1.2 million instructions per handshake). Immutable once made: a
// reloaded pair is a new context for new connections; open ones keep theirs.
class TlsServerContext
{
public:
    // `chainPem`: the server certificate first, then its intermediates; `keyPem`: its unencrypted
    // private key; `clientCaPem` (may be empty): the authorities whose client certificates are
    // required. The caller has checked the files; errors here name what OpenSSL refused.
    static Result<std::shared_ptr<const TlsServerContext>> make(const QByteArray &chainPem, const QByteArray &keyPem,
                                                               const QByteArray &clientCaPem, bool tls13Only);
    ~TlsServerContext();
    TlsServerContext(const TlsServerContext &) = delete;
    TlsServerContext &operator=(const TlsServerContext &) = delete;

    // A server-side connection on the connected, non-blocking socket `fd` (which stays the
    // caller's to close); null when OpenSSL cannot make one.
    ssl_st *newConnection(int fd) const;

private:
    explicit TlsServerContext(ssl_ctx_st *context) : m_context(context) {}
    ssl_ctx_st *m_context;
};

// The reason of the last TLS failure on this thread, as OpenSSL names it ("wrong version number",
// "peer did not return a certificate"); clears OpenSSL's error queue.
QString takeTlsError(const char *fallback);

} // namespace Broker::Rest
