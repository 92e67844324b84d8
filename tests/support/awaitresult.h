// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "eventloop.h"

#include "core/result.h"

#include <functional>
#include <memory>
#include <optional>

namespace Broker::Testing {

// Starts an asynchronous operation with a completion and waits for it: the result, or a Timeout
// error when it did not complete within `timeoutMs`.
//
// The completion owns the state it writes into (a shared_ptr), never a local of this function:
// a store may still call it after the wait gave up, when this frame is long gone. Such a late
// result lands in state that lives as long as the completion does, and no one reads it.
template<typename T>
Result<T> awaitResult(const std::function<void(std::function<void(Result<T>)>)> &operation, int timeoutMs = 10'000)
{
    const auto state = std::make_shared<std::optional<Result<T>>>();
    operation([state](Result<T> r) {
        if (!state->has_value()) // a second call changes nothing the first one delivered
            state->emplace(std::move(r));
    });
    if (!waitUntil([&state] { return state->has_value(); }, timeoutMs))
        return Error{ErrorCode::Timeout, QStringLiteral("the test gave up waiting")};
    return std::move(**state);
}

} // namespace Broker::Testing
