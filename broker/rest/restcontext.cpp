// SPDX-License-Identifier: GPL-3.0-or-later
#include "restcontext.h"

namespace Broker::Rest {

bool RestContext::permit(const ExchangePtr &exchange, const QString &permission) const
{
    if (exchange->user && policy.allows(exchange->user->roles, permission))
        return true;
    exchange->sendProblem(403, QStringLiteral("Unauthorized"),
                          QStringLiteral("Missing permission '%1'").arg(permission));
    return false;
}

} // namespace Broker::Rest
