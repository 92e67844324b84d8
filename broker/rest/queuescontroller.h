// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

namespace Broker::Rest {

// /queues: create, list, detail, change options, delete, purge, browse, redrive.
class QueuesController final : public Controller
{
public:
    QueuesController(RestContext &context, Router &router);

private:
    void create(const ExchangePtr &exchange);
    void list(const ExchangePtr &exchange);
    void detail(const ExchangePtr &exchange);
    void update(const ExchangePtr &exchange);
    void remove(const ExchangePtr &exchange);
    void purge(const ExchangePtr &exchange);
    void browse(const ExchangePtr &exchange);
    void redrive(const ExchangePtr &exchange);
    void events(const ExchangePtr &exchange);
};

} // namespace Broker::Rest
