// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// BROKER_TEST_REDIS_TLS=1 runs a Redis suite that reads it over TLS: its redis-server serves TLS
// only (the fixture's certificates) and its stores connect with tls on and the fixture's CA. CMake
// registers such a run once per suite, beside the clear-text one (label tls).

#include "redisserver.h"
#include "tlscertificates.h"

#include "core/redisoptions.h"

#include <QtGlobal>

namespace Broker::Testing {

inline bool testingRedisTls()
{
    return qEnvironmentVariableIntValue("BROKER_TEST_REDIS_TLS") == 1;
}

// Made on first use, for the whole process.
inline const TlsCertificates &testCertificates()
{
    static TlsCertificates certificates;
    static const bool made = certificates.make();
    if (!made)
        qFatal("cannot make test certificates: %s", qPrintable(certificates.errorString()));
    return certificates;
}

inline void useTestTls(RedisServer &server)
{
    if (testingRedisTls())
        server.useTls(testCertificates(), false);
}

inline void useTestTls(Redis::ConnectionOptions &options)
{
    if (!testingRedisTls())
        return;
    options.tls = true;
    options.tlsCaFile = testCertificates().caFile();
}

} // namespace Broker::Testing
