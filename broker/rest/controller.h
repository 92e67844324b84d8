// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "restcontext.h"
#include "router.h"

namespace Broker::Rest {

class RestServer;

// One resource of the API. Registers its routes in the constructor.
class Controller
{
public:
    explicit Controller(RestContext &context) : m_context(context) {}
    virtual ~Controller() = default;

protected:
    // Answers with `error` when `result` failed; returns whether it succeeded.
    template<typename T>
    static bool check(const ExchangePtr &exchange, const Result<T> &result)
    {
        if (result.ok())
            return true;
        exchange->sendError(result.error());
        return false;
    }

    RestContext &m_context;
};

} // namespace Broker::Rest
