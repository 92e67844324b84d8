// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../rest/restfixture.h"

#include "runtime/remoteapi.h"

#include <QElapsedTimer>
#include <QTest>

#include <optional>

namespace Broker::Testing {

inline RemoteEndpoint plainEndpoint(quint16 port, const QByteArray &key = AdminKey)
{
    RemoteEndpoint endpoint;
    endpoint.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    endpoint.apiKey = key;
    return endpoint;
}

// Runs the event loop until `future` finishes (the reply arrives in this thread); a Timeout
// error of the test's own when it does not within `ms`.
template<typename T>
Result<T> await(const QFuture<Result<T>> &future, int ms = 15'000)
{
    QElapsedTimer timer;
    timer.start();
    while (!future.isFinished() && timer.elapsed() < ms)
        QTest::qWait(2);
    if (!future.isFinished() || future.resultCount() == 0)
        return Error{ErrorCode::Internal, QStringLiteral("test: the future did not finish with a result")};
    return future.result();
}

template<typename T>
T valueOf(const QFuture<Result<T>> &future)
{
    const Result<T> result = await(future);
    if (!result) {
        QTest::qFail(qPrintable(QStringLiteral("expected success, got %1: %2")
                                    .arg(QLatin1StringView(errorCodeName(result.error().code)), result.error().message)),
                     __FILE__, __LINE__);
        return T{};
    }
    return result.value();
}

template<typename T>
std::optional<Error> errorOf(const QFuture<Result<T>> &future)
{
    const Result<T> result = await(future);
    if (result)
        return std::nullopt;
    return result.error();
}

} // namespace Broker::Testing
