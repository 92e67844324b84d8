// SPDX-License-Identifier: GPL-3.0-or-later
#include "apicontract.h"

#include <QJsonArray>

namespace Broker::Rest::Api {

ApiParameter integer(const QString &name, qint64 min, qint64 max, qint64 fallback, const QString &description)
{
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("integer")},
                       {QStringLiteral("minimum"), min},
                       {QStringLiteral("maximum"), max}};
    // A fallback outside the bounds means "absent: something else decides" (the queue's own setting).
    if (fallback >= min && fallback <= max)
        schema.insert(QStringLiteral("default"), fallback);
    return {name, description, schema};
}

ApiParameter number(const QString &name, double min, double max, double fallback, const QString &description)
{
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("number")},
                       {QStringLiteral("minimum"), min},
                       {QStringLiteral("maximum"), max}};
    if (fallback >= min && fallback <= max)
        schema.insert(QStringLiteral("default"), fallback);
    return {name, description, schema};
}

ApiParameter boolean(const QString &name, bool fallback, const QString &description)
{
    return {name, description,
            QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}, {QStringLiteral("default"), fallback}}};
}

ApiParameter text(const QString &name, const QString &description, const QStringList &values)
{
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("string")}};
    if (!values.isEmpty())
        schema.insert(QStringLiteral("enum"), QJsonArray::fromStringList(values));
    return {name, description, schema};
}

} // namespace Broker::Rest::Api
