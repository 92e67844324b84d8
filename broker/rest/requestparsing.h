// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"
#include "queryparameters.h"

#include <QJsonObject>
#include <QString>

namespace Broker::Rest {

// Readers for query parameters and body fields: a missing value gives the default; a present one
// must be of the right type and within range, or the answer names it (400).
Result<qint64> queryInteger(const QueryParameters &query, const char *name, qint64 min, qint64 max, qint64 fallback);
Result<double> queryNumber(const QueryParameters &query, const char *name, double min, double max, double fallback);
Result<bool> queryBool(const QueryParameters &query, const char *name, bool fallback);
QString queryString(const QueryParameters &query, const char *name);

Result<qint64> fieldInteger(const QJsonObject &object, const char *name, qint64 min, qint64 max, qint64 fallback);
Result<double> fieldNumber(const QJsonObject &object, const char *name, double min, double max, double fallback);
Result<QString> fieldString(const QJsonObject &object, const char *name);

} // namespace Broker::Rest
