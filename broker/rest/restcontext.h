// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "exchange.h"
#include "guardoptions.h"

#include "core/clock.h"
#include "engine/messagebroker.h"
#include "errors/errormanager.h"
#include "security/accesspolicy.h"
#include "security/userdirectory.h"

#include <QStringList>

namespace Broker::Rest {

struct RestOptions
{
    GuardOptions guard;
    int maxJsonDepth = 64;
    QStringList corsOrigins;       // exact origins allowed to call from a browser
    bool rateLimitEnabled = false; // per API key
    int requestsPerMinute = 600;
    int burst = 100;
    int authFailuresPerMinute = 30; // per client address, always on
    int authLogIntervalMs = 10'000; // failed/throttled authentications: at most one summary record per interval
    QString durability = QStringLiteral("none"); // what the store promises: none | everysec | always
};

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
