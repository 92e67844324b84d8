// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

#include <optional>

namespace Broker::Rest {

// Where a JSON value lies in a text: [begin, end).
struct JsonSpan
{
    qsizetype begin = 0;
    qsizetype end = 0;
    bool spaced = true; // may hold whitespace outside strings (false only when the scanner saw none)
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
        QList<JsonSpan> elements; // when the value is an array: where each element lies
    };

    // The members of `text`, which must be one JSON object and nothing else. Errors are
    // InvalidArgument "Invalid JSON" (detail: offset and reason), "JSON nested too deeply", or
    // "Request body must be a JSON object".
    static Result<QList<Member>> objectMembers(QByteArrayView text, int maxDepth);
    // Where the first number lies that a double cannot hold (overflow like 1e400, or a nonzero
    // that would read as 0 like 1e-400): its member path ("delay", "options.ttl",
    // "messages[2]"; "" for the top value), or nothing when every number fits. Qt's JSON reads
    // such numbers as null, so a request would get a default instead of a 400.
    static std::optional<QString> numberOutOfRange(QByteArrayView text, int maxDepth);
    // The same for the value at `span` alone (paths start inside it).
    static std::optional<QString> numberOutOfRange(QByteArrayView text, JsonSpan span);
    // The 400 for a number out of range at `path` (as numberOutOfRange names it).
    static Error numberOutOfRangeError(const QString &path);
    // The value at `span` without whitespace outside strings: compact JSON text (a plain copy
    // when the scanner saw no whitespace in it).
    static QByteArray compact(QByteArrayView text, JsonSpan span);
};

} // namespace Broker::Rest
