// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "eventloop.h"

#include "core/result.h"

#include <functional>
#include <optional>

namespace Broker::Testing {

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
