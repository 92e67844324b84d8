// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

namespace Broker::Rest {

// /messages: publish (one, batch), consume (with leases and long polling), ack, nack, extend,
// and a message's lifecycle.
class MessagesController final : public Controller
{
public:
    MessagesController(RestContext &context, Router &router);

private:
    void publish(const ExchangePtr &exchange);
    void publishBatch(const ExchangePtr &exchange);
    void consume(const ExchangePtr &exchange);
    void ack(const ExchangePtr &exchange);
    void nack(const ExchangePtr &exchange);
    void extend(const ExchangePtr &exchange);
    void lifecycle(const ExchangePtr &exchange);

    // Validates the path's queue name and the body; fills `ref` from the path and the body's
    // receipt and group. Answers and returns false when something is wrong.
    bool readMessageRef(const ExchangePtr &exchange, QJsonObject &body, MessageRef &ref);
};

} // namespace Broker::Rest
