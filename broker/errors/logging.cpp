// SPDX-License-Identifier: GPL-3.0-or-later
#include "logging.h"

Q_LOGGING_CATEGORY(lcEngine, "brokerdesk.engine", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStorage, "brokerdesk.storage", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSecurity, "brokerdesk.security", QtInfoMsg)
Q_LOGGING_CATEGORY(lcConfig, "brokerdesk.config", QtInfoMsg)
Q_LOGGING_CATEGORY(lcErrors, "brokerdesk.errors", QtInfoMsg)
