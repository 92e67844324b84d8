// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestparsing.h"

#include "core/jsonfields.h"

#include <cmath>

namespace Broker::Rest {

namespace {
Error invalidParameter(const char *name, const QString &expected)
{
    return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid %1: expected %2").arg(QLatin1StringView(name), expected)};
}
} // namespace

QString queryString(const QueryParameters &query, const char *name)
{
    return query.value(name);
}

Result<qint64> queryInteger(const QueryParameters &query, const char *name, qint64 min, qint64 max, qint64 fallback)
{
    if (!query.contains(name))
        return fallback;
    bool ok = false;
    const qint64 value = queryString(query, name).toLongLong(&ok);
    if (!ok || value < min || value > max)
        return invalidParameter(name, QStringLiteral("a whole number from %1 to %2").arg(min).arg(max));
    return value;
}

Result<double> queryNumber(const QueryParameters &query, const char *name, double min, double max, double fallback)
{
    if (!query.contains(name))
        return fallback;
    bool ok = false;
    const double value = queryString(query, name).toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < min || value > max)
        return invalidParameter(name, QStringLiteral("a number from %1 to %2").arg(min).arg(max));
    return value;
}

Result<bool> queryBool(const QueryParameters &query, const char *name, bool fallback)
{
    if (!query.contains(name))
        return fallback;
    const QString value = queryString(query, name).toLower();
    if (value == QLatin1StringView("true") || value == QLatin1StringView("1"))
        return true;
    if (value == QLatin1StringView("false") || value == QLatin1StringView("0"))
        return false;
    return invalidParameter(name, QStringLiteral("true or false"));
}

Result<qint64> fieldInteger(const QJsonObject &object, const char *name, qint64 min, qint64 max, qint64 fallback)
{
    const QJsonValue value = object.value(QLatin1StringView(name));
    if (value.isUndefined() || value.isNull())
        return fallback;
    return JsonFields::wholeNumber(value, QString::fromLatin1(name), min, max);
}

Result<double> fieldNumber(const QJsonObject &object, const char *name, double min, double max, double fallback)
{
    const QJsonValue value = object.value(QLatin1StringView(name));
    if (value.isUndefined() || value.isNull())
        return fallback;
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || !std::isfinite(number) || number < min || number > max)
        return invalidParameter(name, QStringLiteral("a number from %1 to %2").arg(min).arg(max));
    return number;
}

Result<QString> fieldString(const QJsonObject &object, const char *name)
{
    const QJsonValue value = object.value(QLatin1StringView(name));
    if (value.isUndefined() || value.isNull())
        return QString();
    if (!value.isString())
        return invalidParameter(name, QStringLiteral("a string"));
    return value.toString();
}

} // namespace Broker::Rest
