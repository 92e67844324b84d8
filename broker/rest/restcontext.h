// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "exchange.h"
#include "guardoptions.h"

#include "core/clock.h"
#include "core/httpoptions.h"
#include "engine/messagebroker.h"
#include "errors/errormanager.h"
#include "security/accesspolicy.h"
#include "security/userdirectory.h"

#include <QStringList>

namespace Broker::Rest {

// What controllers work with. Everything lives in the engine's thread.
struct RestContext
{
    MessageBroker &broker;
    UserDirectory &users;
    const AccessPolicy &policy;
    ErrorManager &errors;
    const Clock &clock;
    RestOptions options;

    // Sends 403 and returns false unless the exchange's user holds `permission`.
    bool permit(const ExchangePtr &exchange, const QString &permission) const;
};

} // namespace Broker::Rest
