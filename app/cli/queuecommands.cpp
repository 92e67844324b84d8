// SPDX-License-Identifier: GPL-3.0-or-later
// queues list|create|info|delete|purge|redrive|browse.
#include "commands.h"

#include "commandsupport.h"
#include "rawjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>

namespace BrokerCtl {

void Commands::queues(const QStringList &words)
{
    const QString action = words.value(1);
    if (action == u"list" || action.isEmpty()) {
        return call("GET", QStringLiteral("/queues"), {}, [this](const QJsonValue &json, const QByteArray &raw) {
            QList<QStringList> rows;
            for (const QJsonValue &queue : json[QStringLiteral("queues")].toArray()) {
                const QJsonObject q = queue.toObject();
                const QJsonObject config = q[QStringLiteral("config")].toObject();
                rows.append({q[QStringLiteral("name")].toString(), config[QStringLiteral("type")].toString(),
                             Output::cell(q[QStringLiteral("message_count")]),
                             Output::cell(q[QStringLiteral("stats")][QStringLiteral("publish_count")]),
                             Output::cell(q[QStringLiteral("stats")][QStringLiteral("consume_count")]),
                             Output::cell(config[QStringLiteral("dead_letter_queue")]),
                             Output::time(q[QStringLiteral("created")])});
            }
            m_output.table({QStringLiteral("NAME"), QStringLiteral("TYPE"), QStringLiteral("MESSAGES"),
                            QStringLiteral("PUBLISHED"), QStringLiteral("CONSUMED"),
                            QStringLiteral("DEAD-LETTER QUEUE"), QStringLiteral("CREATED")},
                           rows, raw);
            m_finish(Ok);
        });
    }
    if (!need(words, 3, "queues create|info|delete|purge|browse|redrive NAME"))
        return;
    const QString name = words[2];
    const QString path = QStringLiteral("/queues/") + encoded(name);
    if (action == u"create") {
        QJsonObject options;
        if (m_parser.isSet(QStringLiteral("type")))
            options.insert(QStringLiteral("type"), option("type"));
        for (const auto &[flag, key] :
             {std::pair{"max-size", "max_size"}, std::pair{"ttl", "ttl"}, std::pair{"visibility", "visibility_timeout"},
              std::pair{"max-deliveries", "max_deliveries"}}) {
            if (m_parser.isSet(QString::fromLatin1(flag)))
                options.insert(QString::fromLatin1(key), option(flag).toLongLong());
        }
        if (m_parser.isSet(QStringLiteral("dlq"))) {
            const QString dlq = option("dlq");
            options.insert(QStringLiteral("dead_letter_queue"), dlq == u"true" ? QJsonValue(true) : QJsonValue(dlq));
        }
        QJsonObject body{{QStringLiteral("name"), name}, {QStringLiteral("options"), options}};
        return call("POST", QStringLiteral("/queues"), compact(body),
                    [this](const QJsonValue &json, const QByteArray &raw) {
                        m_output.keyValues(pairsOf(json.toObject()), raw);
                        m_finish(Ok);
                    });
    }
    const auto showAndFinish = [this](const QJsonValue &json, const QByteArray &raw) {
        m_output.keyValues(pairsOf(json.toObject()), raw);
        m_finish(Ok);
    };
    if (action == u"info")
        return call("GET", path, {}, showAndFinish);
    if (action == u"delete")
        return call("DELETE", path, {}, showAndFinish);
    if (action == u"purge")
        return call("POST", path + QStringLiteral("/purge"), {}, showAndFinish);
    if (action == u"redrive") {
        QJsonObject body;
        if (m_parser.isSet(QStringLiteral("limit")))
            body.insert(QStringLiteral("limit"), option("limit").toLongLong());
        return call("POST", path + QStringLiteral("/redrive"), compact(body), showAndFinish);
    }
    if (action == u"browse") {
        QString query = QStringLiteral("?offset=%1&limit=%2")
                            .arg(option("offset").isEmpty() ? QStringLiteral("0") : option("offset"),
                                 option("limit").isEmpty() ? QStringLiteral("50") : option("limit"));
        if (!option("state").isEmpty()) // the broker names the states it knows when this is not one
            query += QStringLiteral("&state=") + QString::fromLatin1(QUrl::toPercentEncoding(option("state")));
        return call(
            "GET", path + QStringLiteral("/messages") + query, {}, [this](const QJsonValue &, const QByteArray &raw) {
                QList<QStringList> rows;
                // The payload column is the data as the broker returned it (keys in their order).
                for (const QByteArray &message : RawJson::elements(RawJson::member(raw, u"messages"))) {
                    const QJsonObject m = QJsonDocument::fromJson(message).object();
                    rows.append({m[QStringLiteral("id")].toString(), Output::time(m[QStringLiteral("timestamp")]),
                                 Output::cell(m[QStringLiteral("priority")]), m[QStringLiteral("publisher")].toString(),
                                 QString::fromUtf8(RawJson::member(message, u"data"))});
                }
                m_output.table({QStringLiteral("ID"), QStringLiteral("PUBLISHED"), QStringLiteral("PRIORITY"),
                                QStringLiteral("PUBLISHER"), QStringLiteral("DATA")},
                               rows, raw);
                m_finish(Ok);
            });
    }
    fail(UsageError, QStringLiteral("unknown queues action '%1'").arg(action));
}

} // namespace BrokerCtl
