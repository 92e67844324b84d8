// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <functional>
#include <optional>

namespace Broker::Testing {

// Runs the event loop until `done()` or `timeoutMs` passed; returns done(). Unlike QTRY_*, it
// polls every few milliseconds and never evaluates `done` after the last check.
template<typename Predicate>
bool waitUntil(Predicate done, int timeoutMs = 5000)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    return done();
}

// Starts an asynchronous operation with a completion and waits for it: the result, or a Timeout
// error when it did not complete within `timeoutMs`.
template<typename T>
Result<T> awaitResult(const std::function<void(std::function<void(Result<T>)>)> &operation, int timeoutMs = 10'000)
{
    std::optional<Result<T>> result;
    operation([&result](Result<T> r) { result.emplace(std::move(r)); });
    if (!waitUntil([&] { return result.has_value(); }, timeoutMs))
        return Error{ErrorCode::Timeout, QStringLiteral("the test gave up waiting")};
    return std::move(*result);
}

} // namespace Broker::Testing
