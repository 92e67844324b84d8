// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

namespace Broker::Rest {

// /users (manage_users): list, add (the key is shown once), change, rotate a key, delete.
class UsersController final : public Controller
{
public:
    UsersController(RestContext &context, Router &router);

private:
    void list(const ExchangePtr &exchange);
    void create(const ExchangePtr &exchange);
    void update(const ExchangePtr &exchange);
    void remove(const ExchangePtr &exchange);
    void rotate(const ExchangePtr &exchange);

    // True when `id` is the only enabled admin left: removing or disabling it would lock everyone out.
    bool isLastAdmin(const QString &id) const;
};

} // namespace Broker::Rest
