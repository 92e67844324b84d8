// SPDX-License-Identifier: GPL-3.0-or-later
#include "result.h"

namespace Broker {

const char *errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidArgument: return "invalid_argument";
    case ErrorCode::PayloadTooLarge: return "payload_too_large";
    case ErrorCode::Unauthenticated: return "unauthenticated";
    case ErrorCode::PermissionDenied: return "permission_denied";
    case ErrorCode::QueueNotFound: return "queue_not_found";
    case ErrorCode::MessageNotFound: return "message_not_found";
    case ErrorCode::QueueExists: return "queue_exists";
    case ErrorCode::NotFound: return "not_found";
    case ErrorCode::Conflict: return "conflict";
    case ErrorCode::StaleReceipt: return "stale_receipt";
    case ErrorCode::QueueFull: return "queue_full";
    case ErrorCode::RateLimited: return "rate_limited";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::Internal: return "internal";
    }
    return "internal";
}

} // namespace Broker
