// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandsupport.h"

#include "output.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>

namespace BrokerCtl {

QString encoded(const QString &segment)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(segment));
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonValue messageValue(const QString &text)
{
    const QJsonDocument wrapped = QJsonDocument::fromJson("[" + text.toUtf8() + "]");
    if (wrapped.isArray() && wrapped.array().size() == 1)
        return wrapped.array().at(0);
    return QJsonValue(text);
}

QList<QPair<QString, QString>> pairsOf(const QJsonObject &object, const QString &prefix)
{
    QList<QPair<QString, QString>> pairs;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it->isObject())
            pairs += pairsOf(it->toObject(), prefix + it.key() + QLatin1Char('.'));
        else
            pairs.append({prefix + it.key(), Output::cell(*it)});
    }
    return pairs;
}

} // namespace BrokerCtl
