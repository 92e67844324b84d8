// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandsupport.h"

#include "output.h"
#include "rawjson.h"

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

QByteArray messageText(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    const QJsonDocument wrapped = QJsonDocument::fromJson("[" + bytes + "]");
    if (wrapped.isArray() && wrapped.array().size() == 1)
        return bytes;
    // A JSON string: an array of one, without its brackets.
    return QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact).chopped(1).mid(1);
}

QByteArray withMember(const QByteArray &object, const char *key, const QByteArray &valueText)
{
    QByteArray text = object.trimmed();
    text.chop(1); // the closing brace
    if (text.trimmed() != "{")
        text += ',';
    return text + '"' + key + "\":" + valueText + '}';
}

QString messageLine(const QByteArray &messageText)
{
    const QJsonObject m = QJsonDocument::fromJson(messageText).object();
    QString line = m[QStringLiteral("id")].toString() + QLatin1Char(' ')
        + QString::fromUtf8(RawJson::member(messageText, u"data"));
    if (m[QStringLiteral("receipt")].isString())
        line += QStringLiteral("  (receipt %1)").arg(m[QStringLiteral("receipt")].toString());
    return line;
}

QList<QPair<QString, QString>> pairsOf(const QJsonObject &object, const QString &prefix)
{
    QList<QPair<QString, QString>> pairs;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it->isObject())
            pairs += pairsOf(it->toObject(), prefix + it.key() + QLatin1Char('.'));
        else
            pairs.append({prefix + it.key(), Output::isTimeField(it.key()) ? Output::time(*it) : Output::cell(*it)});
    }
    return pairs;
}

} // namespace BrokerCtl
