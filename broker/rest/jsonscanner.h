// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

namespace Broker::Rest {

// Where a JSON value lies in a text: [begin, end).
struct JsonSpan
{
    qsizetype begin = 0;
    qsizetype end = 0;
    qsizetype size() const { return end - begin; }
};

// A validating JSON scanner (RFC 8259, strict UTF-8, bounded nesting) that finds values without
// building a document. Publishing uses it to take each message's JSON text straight out of the
// request body: parsing the body into QJsonDocument and serialising every message again costs
// several times more than queueing it.
class JsonScanner
{
public:
    struct Member
    {
        QString key;
        JsonSpan value;
    };

    // The members of `text`, which must be one JSON object and nothing else. Errors are
    // InvalidArgument "Invalid JSON" (detail: offset and reason), "JSON nested too deeply", or
    // "Request body must be a JSON object".
    static Result<QList<Member>> objectMembers(QByteArrayView text, int maxDepth);
    // The elements of the array at `span` (already validated by objectMembers).
    static QList<JsonSpan> arrayElements(QByteArrayView text, JsonSpan span);
    // The value at `span` without whitespace outside strings: compact JSON text.
    static QByteArray compact(QByteArrayView text, JsonSpan span);
};

} // namespace Broker::Rest
