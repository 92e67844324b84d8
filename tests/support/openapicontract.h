// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Checks an HTTP answer against an OpenAPI document: the operation is found by path template
// and method, the answer's status must be one the operation documents, its Content-Type the
// documented media type, and a JSON body must validate against the documented schema. What a
// request to no route gets (404, 405) is the router's, not an operation's, and is checked as a
// problem document.

#include "jsonschemavalidator.h"

#include <QByteArray>
#include <QUrl>

#include <optional>

namespace Broker::Testing {

class OpenApiContract
{
public:
    explicit OpenApiContract(QJsonObject document) : m_document(std::move(document)), m_validator(m_document) {}

    // What is wrong with the answer (empty: it is what the document says). `target` is the
    // request's path with its query.
    QStringList check(QByteArray method, const QByteArray &target, int status, const QByteArray &contentType,
                      const QByteArray &body) const
    {
        const bool head = method == "HEAD";
        if (head)
            method = "GET";
        if (method == "OPTIONS")
            return {}; // CORS preflights are answered before routing, for every path
        const QString path = QUrl(QString::fromUtf8(target)).path(QUrl::FullyEncoded);
        const std::optional<QString> pattern = templateFor(path);
        const QJsonObject item = pattern ? m_document.value(u"paths").toObject().value(*pattern).toObject() : QJsonObject{};
        const QString operationKey = QString::fromLatin1(method).toLower();
        if (!item.contains(operationKey)) {
            const int expected = pattern ? 405 : 404;
            if (status != expected)
                return {QStringLiteral("%1 %2: no such operation in the document, and the answer is %3, not %4")
                            .arg(QString::fromLatin1(method), path).arg(status).arg(expected)};
            return checkBody(QStringLiteral("application/problem+json"),
                             QJsonObject{{QStringLiteral("$ref"), QStringLiteral("#/components/schemas/Problem")}},
                             contentType, body, head);
        }
        const QString where = QStringLiteral("%1 %2 -> %3").arg(QString::fromLatin1(method), *pattern).arg(status);
        QJsonObject response = item.value(operationKey).toObject().value(u"responses").toObject()
                                   .value(QString::number(status)).toObject();
        if (response.isEmpty())
            return {where + QStringLiteral(": status not documented for this operation")};
        if (response.contains(u"$ref"))
            response = m_validator.resolve(response.value(u"$ref").toString());
        const QJsonObject content = response.value(u"content").toObject();
        if (content.isEmpty()) {
            if (!body.isEmpty() && !head)
                return {where + QStringLiteral(": the document says no body, the answer has %1 bytes").arg(body.size())};
            return {};
        }
        const QString mediaType = content.begin().key();
        QStringList faults = checkBody(mediaType, content.begin().value().toObject().value(u"schema").toObject(),
                                       contentType, body, head);
        for (QString &fault : faults)
            fault.prepend(where + QStringLiteral(": "));
        return faults;
    }

    const QJsonObject &document() const { return m_document; }

private:
    // The path template the path falls under; literal segments win over parameters, as in the router.
    std::optional<QString> templateFor(const QString &path) const
    {
        const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
        std::optional<QString> best;
        int bestLiterals = -1;
        const QJsonObject paths = m_document.value(u"paths").toObject();
        for (auto it = paths.begin(); it != paths.end(); ++it) {
            const QStringList parts = it.key().split(u'/', Qt::SkipEmptyParts);
            if (parts.size() != segments.size())
                continue;
            int literals = 0;
            bool matches = true;
            for (qsizetype i = 0; i < parts.size() && matches; ++i) {
                if (parts[i].startsWith(u'{'))
                    continue;
                matches = QUrl::fromPercentEncoding(segments[i].toUtf8()) == parts[i];
                ++literals;
            }
            if (matches && literals > bestLiterals) {
                best = it.key();
                bestLiterals = literals;
            }
        }
        return best;
    }

    QStringList checkBody(const QString &mediaType, const QJsonObject &schema, const QByteArray &contentType,
                          const QByteArray &body, bool head) const
    {
        const QString received = QString::fromLatin1(contentType).trimmed();
        if (received != mediaType && received.section(u';', 0, 0).trimmed() != mediaType.section(u';', 0, 0).trimmed())
            return {QStringLiteral("Content-Type is '%1', the document says '%2'").arg(received, mediaType)};
        if (head)
            return {};
        if (!mediaType.contains(u"json")) {
            const QJsonObject named = schema.contains(u"$ref") ? m_validator.resolve(schema.value(u"$ref").toString()) : schema;
            if (named.value(u"type").toString() == u"string")
                return {};
            return {QStringLiteral("a %1 body cannot be checked against a non-string schema").arg(mediaType)};
        }
        QJsonParseError error;
        QJsonDocument parsed = QJsonDocument::fromJson(body, &error);
        if (error.error == QJsonParseError::IllegalNumber) {
            // A payload may hold numbers beyond a double's range (it is kept as sent); Qt cannot
            // read them, and no schema here bounds a payload: read them as 0.
            static const QRegularExpression huge(QStringLiteral(R"(-?\d+(\.\d+)?[eE][+-]?\d{3,})"));
            parsed = QJsonDocument::fromJson(QString::fromUtf8(body).replace(huge, QStringLiteral("0")).toUtf8(), &error);
        }
        if (error.error != QJsonParseError::NoError)
            return {QStringLiteral("the body is not JSON: %1").arg(error.errorString())};
        const QJsonValue value = parsed.isObject() ? QJsonValue(parsed.object()) : QJsonValue(parsed.array());
        return m_validator.validate(value, schema);
    }

    QJsonObject m_document;
    JsonSchemaValidator m_validator;
};

} // namespace Broker::Testing
