// SPDX-License-Identifier: GPL-3.0-or-later
// publish, consume (once or --follow), and settling a lease: ack, nack, extend.
#include "commands.h"

#include "commandsupport.h"
#include "rawjson.h"

#include <QFile>
#include <QJsonArray>

#include <cstdio>
#include <memory>

namespace BrokerCtl {

void Commands::publish(const QStringList &words)
{
    if (!need(words, 2, "publish QUEUE [MESSAGE] [--file F] [--lines]"))
        return;
    QString text;
    if (words.size() >= 3) {
        text = words.mid(2).join(QLatin1Char(' '));
    } else {
        QFile file;
        const bool fromFile = m_parser.isSet(QStringLiteral("file"));
        if (fromFile)
            file.setFileName(option("file"));
        if (fromFile ? !file.open(QIODevice::ReadOnly) : !file.open(stdin, QIODevice::ReadOnly))
            return fail(Failure,
                        QStringLiteral("cannot read %1: %2")
                            .arg(fromFile ? option("file") : QStringLiteral("stdin"), file.errorString()));
        text = QString::fromUtf8(file.readAll());
    }
    QJsonObject base;
    if (m_parser.isSet(QStringLiteral("priority")))
        base.insert(QStringLiteral("priority"), option("priority").toInt());
    if (m_parser.isSet(QStringLiteral("delay")))
        base.insert(QStringLiteral("delay"), option("delay").toDouble());
    const QString path = QStringLiteral("/messages/") + encoded(words[1]);

    if (!m_parser.isSet(QStringLiteral("lines"))) {
        const QByteArray body = withMember(compact(base), "message", messageText(text.trimmed()));
        return call("POST", path, body, [this](const QJsonValue &json, const QByteArray &raw) {
            m_output.keyValues(pairsOf(json.toObject()), raw);
            m_finish(Ok);
        });
    }
    // One message per non-empty line, in batches of up to 1000 (all or nothing per batch).
    // Each batch is the JSON text of the messages array, built from the lines as they are.
    auto batches = std::make_shared<QList<QByteArray>>();
    int inBatch = 0;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        if (line.trimmed().isEmpty())
            continue;
        if (batches->isEmpty() || inBatch >= 1000) {
            batches->append(QByteArray("["));
            inBatch = 0;
        }
        batches->last() += (inBatch++ > 0 ? "," : "") + messageText(line.trimmed());
    }
    for (QByteArray &batch : *batches)
        batch += ']';
    if (batches->isEmpty())
        return fail(UsageError, QStringLiteral("no messages to publish"));
    auto ids = std::make_shared<QJsonArray>();
    // Each request's callback holds the chain; the chain refers to itself only weakly.
    auto next = std::make_shared<std::function<void()>>();
    *next = [this, path, base, batches, ids, weakNext = std::weak_ptr<std::function<void()>>(next)] {
        if (batches->isEmpty()) {
            QJsonObject result{{QStringLiteral("success"), true},
                               {QStringLiteral("message_ids"), *ids},
                               {QStringLiteral("count"), ids->size()}};
            if (m_output.format() == Output::Format::Json)
                m_output.json(compact(result));
            else
                m_output.text(QStringLiteral("published %1 messages").arg(ids->size()));
            m_finish(Ok);
            return;
        }
        const QByteArray body = withMember(compact(base), "messages", batches->takeFirst());
        call("POST", path + QStringLiteral("/batch"), body,
             [ids, next = weakNext.lock()](const QJsonValue &json, const QByteArray &) {
                 for (const QJsonValue &id : json[QStringLiteral("message_ids")].toArray())
                     ids->append(id);
                 (*next)();
             });
    };
    (*next)();
}

void Commands::consume(const QStringList &words)
{
    if (!need(words, 2, "consume QUEUE [--count N] [--lease] [--wait S] [--follow]"))
        return;
    const bool lease = m_parser.isSet(QStringLiteral("lease"));
    const bool follow = m_parser.isSet(QStringLiteral("follow"));
    QStringList query{QStringLiteral("acknowledge=%1").arg(lease ? QStringLiteral("false") : QStringLiteral("true"))};
    const QString count = option("count").isEmpty() ? QStringLiteral("1") : option("count");
    query << QStringLiteral("count=") + count;
    // --follow waits as long as the broker allows on each round.
    const QString wait = option("wait").isEmpty() ? (follow ? QStringLiteral("20") : QString()) : option("wait");
    if (!wait.isEmpty())
        query << QStringLiteral("wait=") + wait;
    for (const auto &[flag, key] : {std::pair{"visibility", "visibility_timeout"}, std::pair{"group", "group"},
                                    std::pair{"consumer", "consumer"}}) {
        if (m_parser.isSet(QString::fromLatin1(flag)))
            query << QString::fromLatin1(key) + QLatin1Char('=') + encoded(option(flag));
    }
    const QString path =
        QStringLiteral("/messages/") + encoded(words[1]) + QLatin1Char('?') + query.join(QLatin1Char('&'));
    auto round = std::make_shared<std::function<void()>>();
    *round = [this, path, follow, weakRound = std::weak_ptr<std::function<void()>>(round)] {
        const std::shared_ptr<std::function<void()>> self = weakRound.lock();
        const auto printed = [this, follow, self](const QJsonValue &, const QByteArray &raw) {
            // Each message as the broker wrote it: JSON output is its text, one per line.
            QList<QByteArray> messages = RawJson::elements(RawJson::member(raw, u"messages"));
            if (const QByteArray one = RawJson::member(raw, u"message"); !one.isNull())
                messages.append(one);
            for (const QByteArray &message : messages) {
                if (m_output.format() == Output::Format::Json)
                    m_output.json(message);
                else
                    m_output.text(messageLine(message));
            }
            std::fflush(stdout);
            if (follow)
                return (*self)();
            m_finish(Ok);
        };
        call("GET", path, {}, printed, [this, follow, self] {
            if (follow)
                return (*self)();
            if (m_output.format() == Output::Format::Table)
                Output::note(QStringLiteral("no message"));
            m_finish(Ok);
        });
    };
    (*round)();
}

void Commands::settle(const QStringList &words)
{
    if (!need(words, 3, "ack|nack|extend QUEUE ID [--receipt R]"))
        return;
    const QString action = words[0];
    QJsonObject body;
    if (m_parser.isSet(QStringLiteral("receipt")))
        body.insert(QStringLiteral("receipt"), option("receipt"));
    if (m_parser.isSet(QStringLiteral("group")))
        body.insert(QStringLiteral("group"), option("group"));
    QString path = QStringLiteral("/messages/") + encoded(words[1]) + QLatin1Char('/') + encoded(words[2]);
    QByteArray method = "PUT";
    if (action == u"nack") {
        method = "POST";
        path += QStringLiteral("/nack");
        if (m_parser.isSet(QStringLiteral("delay")))
            body.insert(QStringLiteral("delay"), option("delay").toDouble());
    } else if (action == u"extend") {
        if (!m_parser.isSet(QStringLiteral("visibility")))
            return fail(UsageError, QStringLiteral("usage: brokerctl extend QUEUE ID --visibility S [--receipt R]"));
        method = "POST";
        path += QStringLiteral("/extend");
        body.insert(QStringLiteral("visibility_timeout"), option("visibility").toLongLong());
    }
    call(method, path, compact(body), [this](const QJsonValue &json, const QByteArray &raw) {
        m_output.keyValues(pairsOf(json.toObject()), raw);
        m_finish(Ok);
    });
}

} // namespace BrokerCtl
