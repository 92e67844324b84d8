// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

namespace Broker::Rest {

// /users (manage_users): list, add (the key is shown once), change, rotate a key, delete. A caller
// grants only roles whose permissions it holds and acts only on users whose permissions it holds;
// the directory keeps the last admin.
class UsersController final : public Controller
{
public:
    UsersController(RestContext &context, Router &router);

private:
    void list(const ExchangePtr &exchange);
    void me(const ExchangePtr &exchange);
    void create(const ExchangePtr &exchange);
    void update(const ExchangePtr &exchange);
    void remove(const ExchangePtr &exchange);
    void rotate(const ExchangePtr &exchange);

    static QStringList actorRoles(const ExchangePtr &exchange);
    // 404 when there is no user `id`, 403 when it holds permissions the caller lacks (a user with
    // manage_users may act only on users it could stand in for); true otherwise.
    bool mayManage(const ExchangePtr &exchange, const QString &id) const;
};

} // namespace Broker::Rest
