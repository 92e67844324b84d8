// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

namespace Broker::Rest {

// GET /processors (view_metrics): how each processor (an in-process consumer of a queue: a C++
// callable, or a webhook or exec processor from the config) is doing, by id, optionally only
// those of one queue (`?queue=`). A queue without processors, or with no such queue, answers an
// empty list: the filter selects, it does not name a resource.
class ProcessorsController final : public Controller
{
public:
    ProcessorsController(RestContext &context, Router &router);

private:
    void list(const ExchangePtr &exchange);
};

} // namespace Broker::Rest
