// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

namespace Broker::Rest {

// Operator actions on chosen messages of a queue: POST /queues/{q}/messages/actions (delete,
// requeue, move, dead-letter) and POST /queues/{q}/redrive (with a selection, edited payloads and
// a dry run). Each action needs the permissions of the operation it stands for (docs/rest.md).
class MessageActionsController final : public Controller
{
public:
    MessageActionsController(RestContext &context, Router &router);

private:
    void act(const ExchangePtr &exchange);
    void redrive(const ExchangePtr &exchange);
};

} // namespace Broker::Rest
