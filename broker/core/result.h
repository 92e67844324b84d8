// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>
#include <utility>
#include <variant>

namespace Broker {

// What went wrong, independent of any transport. The REST layer maps each code to one HTTP
// status in a single function; the message is user-facing and never contains secrets.
enum class ErrorCode {
    InvalidArgument,  // malformed input: name, option, body            -> 400
    PayloadTooLarge,  // message or body over a limit                   -> 413
    Unauthenticated,  // missing or unknown API key                     -> 401
    PermissionDenied, // authenticated, but not allowed                 -> 403
    QueueNotFound,    //                                                -> 404
    MessageNotFound,  // unknown id, or not in flight any more          -> 404
    QueueExists,      //                                                -> 409
    NotFound,         // another resource (a user, ...)                 -> 404
    Conflict,         // another resource exists already                -> 409
    StaleReceipt,     // the receipt belongs to an earlier delivery     -> 409
    QueueFull,        // max_size reached                               -> 429
    RateLimited,      //                                                -> 429
    Unavailable,      // storage not usable right now                   -> 503
    Timeout,          // storage did not answer within its deadline     -> 503/504
    Internal,         // a bug or an unexpected storage reply           -> 500
};

const char *errorCodeName(ErrorCode code);

struct Error
{
    Error() = default;
    Error(ErrorCode errorCode, QString errorMessage, QString errorDetail = {})
        : code(errorCode), message(std::move(errorMessage)), detail(std::move(errorDetail))
    {
    }

    ErrorCode code = ErrorCode::Internal;
    QString message; // short and stable: API clients compare it (gCore's error strings)
    QString detail;  // optional: what exactly was wrong
};

// The value of an engine operation or the reason it failed. No exceptions cross the engine.
template<typename T>
class [[nodiscard]] Result
{
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}
    Result(ErrorCode code, QString message) : m_state(Error{code, std::move(message)}) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    const T &value() const & { return std::get<T>(m_state); }
    T &value() & { return std::get<T>(m_state); }
    T &&value() && { return std::get<T>(std::move(m_state)); }
    const T *operator->() const { return &std::get<T>(m_state); }
    const T &operator*() const { return std::get<T>(m_state); }

    const Error &error() const { return std::get<Error>(m_state); }

private:
    std::variant<T, Error> m_state;
};

// For operations that only succeed or fail.
template<>
class [[nodiscard]] Result<void>
{
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)) {}
    Result(ErrorCode code, QString message) : m_error(Error{code, std::move(message)}) {}

    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error &error() const { return *m_error; }

private:
    std::optional<Error> m_error;
};

} // namespace Broker
