// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonscanner.h"

#include "core/jsonfields.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QList>
#include <QtAlgorithms>

#include <cctype>
#include <cstring>
#include <charconv>
#include <optional>
#include <limits>


namespace Broker::Rest {

namespace {

class Scanner
{
public:
    Scanner(QByteArrayView text, int maxDepth, qsizetype start = 0) : m_text(text), m_maxDepth(maxDepth), m_pos(start)
    {
    }

    // Scans one value at m_pos; on success m_pos is just past it.
    bool value(int depth)
    {
        skipSpace();
        if (m_pos >= m_text.size())
            return fail("unexpected end of input");
        switch (m_text[m_pos]) {
        case '{': return object(depth + 1);
        case '[': return array(depth + 1);
        case '"': return string();
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        default: return number();
        }
    }

    bool object(int depth, QList<JsonScanner::Member> *members = nullptr)
    {
        if (depth > m_maxDepth)
            return tooDeep();
        ++m_pos; // '{'
        skipSpace();
        if (peek() == '}') {
            ++m_pos;
            return true;
        }
        for (;;) {
            skipSpace();
            if (peek() != '"')
                return fail("expected a member name");
            const qsizetype keyBegin = m_pos;
            if (!string())
                return false;
            const JsonSpan key{keyBegin, m_pos};
            skipSpace();
            if (peek() != ':')
                return fail("expected ':'");
            ++m_pos;
            skipSpace();
            const qsizetype valueBegin = m_pos;
            const quint64 spacesBefore = m_spaces;
            if (m_checkNumbers)
                m_path.append(PathStep{key, -1});
            // A member's array has its elements noted on the way, so that nobody scans it again.
            QList<JsonSpan> elements;
            if (!(members && peek() == '[' ? array(depth + 1, &elements) : value(depth)))
                return false;
            if (m_checkNumbers)
                m_path.removeLast();
            if (members)
                members->append({decodeKey(key), JsonSpan{valueBegin, m_pos, m_spaces != spacesBefore}, std::move(elements)});
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == '}') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or '}'");
        }
    }

    bool array(int depth, QList<JsonSpan> *elements = nullptr)
    {
        if (depth > m_maxDepth)
            return tooDeep();
        ++m_pos; // '['
        skipSpace();
        if (peek() == ']') {
            ++m_pos;
            return true;
        }
        for (qsizetype index = 0;; ++index) {
            if (m_checkNumbers)
                m_path.append(PathStep{{}, index});
            skipSpace();
            const qsizetype begin = m_pos;
            const quint64 spacesBefore = m_spaces;
            if (!value(depth))
                return false;
            if (elements)
                elements->append(JsonSpan{begin, m_pos, m_spaces != spacesBefore});
            if (m_checkNumbers)
                m_path.removeLast();
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == ']') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or ']'");
        }
    }

    bool string()
    {
        ++m_pos; // '"'
        const char *data = m_text.data();
        const qsizetype size = m_text.size();
        while (m_pos < size) {
            // Plain printable ASCII is the common case: skip it eight bytes at a time, then in a
            // tight loop up to the byte that needs a look.
            m_pos += JsonFields::plainRun(data + m_pos, size - m_pos);
            while (m_pos < size) {
                const auto c = static_cast<unsigned char>(data[m_pos]);
                if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                    break;
                ++m_pos;
            }
            if (m_pos >= size)
                break;
            const auto c = static_cast<unsigned char>(data[m_pos]);
            if (c == '"') {
                ++m_pos;
                return true;
            }
            if (c < 0x20)
                return fail("control character in a string");
            if (c == '\\') {
                if (!escape())
                    return false;
                continue;
            }
            if (!utf8Sequence(c))
                return fail("invalid UTF-8 in a string");
        }
        return fail("unterminated string");
    }

    bool atEnd()
    {
        skipSpace();
        return m_pos == m_text.size() || fail("unexpected text after the value");
    }

    // From now on, remembers where the first number lies that a double cannot hold.
    void checkNumbers() { m_checkNumbers = true; }
    const std::optional<QString> &numberOutOfRange() const { return m_outOfRange; }

    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    const Error &error() const { return m_error; }

    void skipSpace()
    {
        const qsizetype from = m_pos;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                break;
            ++m_pos;
        }
        if (m_pos != from)
            ++m_spaces;
    }

private:
    bool escape()
    {
        ++m_pos; // '\'
        if (m_pos >= m_text.size())
            return fail("unterminated string");
        const char c = m_text[m_pos++];
        if (c == 'u') {
            for (int i = 0; i < 4; ++i, ++m_pos) {
                if (m_pos >= m_text.size() || !std::isxdigit(static_cast<unsigned char>(m_text[m_pos])))
                    return fail("invalid \\u escape");
            }
            return true;
        }
        if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't')
            return true;
        return fail("invalid escape");
    }

    // Checks one multi-byte UTF-8 sequence starting with `lead` (RFC 3629: no overlong forms, no
    // surrogates, nothing above U+10FFFF).
    bool utf8Sequence(unsigned char lead)
    {
        int length;
        quint32 code;
        if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
            code = lead & 0x1F;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            code = lead & 0x0F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            code = lead & 0x07;
        } else {
            return false;
        }
        if (m_pos + length > m_text.size())
            return false;
        for (int i = 1; i < length; ++i) {
            const auto c = static_cast<unsigned char>(m_text[m_pos + i]);
            if ((c & 0xC0) != 0x80)
                return false;
            code = (code << 6) | (c & 0x3F);
        }
        if ((length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) || (length == 4 && (code < 0x10000 || code > 0x10FFFF)))
            return false;
        m_pos += length;
        return true;
    }

    bool literal(const char *word)
    {
        const QByteArrayView expected(word);
        if (m_text.sliced(m_pos).startsWith(expected)) {
            m_pos += expected.size();
            return true;
        }
        return fail("invalid literal");
    }

    bool number()
    {
        const qsizetype begin = m_pos;
        if (!numberSyntax())
            return false;
        if (m_checkNumbers && !m_outOfRange && !fitsDouble(m_text.sliced(begin, m_pos - begin))) {
            QString path;
            for (const PathStep &step : std::as_const(m_path)) {
                if (step.index >= 0)
                    path += QStringLiteral("[%1]").arg(step.index);
                else
                    path += (path.isEmpty() ? QString() : QStringLiteral(".")) + decodeKey(step.key);
            }
            m_outOfRange = path;
        }
        return true;
    }

    // JSON allows any number of digits; a double (what Qt's JSON and the broker read) holds
    // magnitudes up to about 1.8e308 and down to about 4.9e-324. Beyond them a parser gives
    // infinity, null or zero in silence.
    static bool fitsDouble(QByteArrayView text)
    {
        double value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        return error == std::errc() && end == text.data() + text.size();
    }

    bool numberSyntax()
    {
        const auto digit = [this] { return m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9'; };
        if (peek() == '-')
            ++m_pos;
        if (peek() == '0') {
            ++m_pos;
        } else if (digit()) {
            while (digit())
                ++m_pos;
        } else {
            return fail("invalid value");
        }
        if (peek() == '.') {
            ++m_pos;
            if (!digit())
                return fail("invalid number");
            while (digit())
                ++m_pos;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++m_pos;
            if (peek() == '+' || peek() == '-')
                ++m_pos;
            if (!digit())
                return fail("invalid number");
            while (digit())
                ++m_pos;
        }
        return true;
    }

    QString decodeKey(JsonSpan key) const
    {
        const QByteArrayView inner = m_text.sliced(key.begin + 1, key.size() - 2);
        if (!inner.contains('\\'))
            return QString::fromUtf8(inner);
        const QJsonDocument wrapped = QJsonDocument::fromJson("[" + m_text.sliced(key.begin, key.size()).toByteArray() + "]");
        return wrapped.array().at(0).toString();
    }

    bool fail(const char *reason)
    {
        m_error = Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid JSON"),
                        QStringLiteral("At offset %1: %2").arg(m_pos).arg(QLatin1StringView(reason))};
        return false;
    }

    bool tooDeep()
    {
        m_error = Error{ErrorCode::InvalidArgument,
                        QStringLiteral("JSON nested too deeply (at most %1 levels)").arg(m_maxDepth)};
        return false;
    }

    QByteArrayView m_text;
    int m_maxDepth;
    qsizetype m_pos;
    Error m_error;
    // One step down to the current value: a member (its key) or an array element (its index).
    // Kept as positions; only a path that is reported is decoded.
    struct PathStep
    {
        JsonSpan key;
        qsizetype index = -1;
    };
    quint64 m_spaces = 0; // runs of whitespace skipped so far
    bool m_checkNumbers = false;
    QList<PathStep> m_path;
    std::optional<QString> m_outOfRange; // where the first number out of a double's range lies
};

} // namespace

Result<QList<JsonScanner::Member>> JsonScanner::objectMembers(QByteArrayView text, int maxDepth)
{
    Scanner scanner(text, maxDepth);
    scanner.skipSpace();
    if (scanner.peek() != '{') {
        if (!scanner.value(0) || !scanner.atEnd())
            return scanner.error();
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Request body must be a JSON object")};
    }
    QList<Member> members;
    if (!scanner.object(1, &members) || !scanner.atEnd())
        return scanner.error();
    return members;
}

std::optional<QString> JsonScanner::numberOutOfRange(QByteArrayView text, int maxDepth)
{
    Scanner scanner(text, maxDepth);
    scanner.checkNumbers();
    if (!scanner.value(0))
        return std::nullopt; // not valid JSON: the parser's error says more
    return scanner.numberOutOfRange();
}

std::optional<QString> JsonScanner::numberOutOfRange(QByteArrayView text, JsonSpan span)
{
    Scanner scanner(text.sliced(0, span.end), std::numeric_limits<int>::max(), span.begin);
    scanner.checkNumbers();
    if (!scanner.value(0))
        return std::nullopt;
    return scanner.numberOutOfRange();
}

Error JsonScanner::numberOutOfRangeError(const QString &path)
{
    return Error{ErrorCode::InvalidArgument,
                 QStringLiteral("Invalid %1: number out of range").arg(path.isEmpty() ? QStringLiteral("number") : path),
                 QStringLiteral("Numbers must fit a double: magnitudes from about 4.9e-324 to 1.8e308, or 0")};
}

QByteArray JsonScanner::compact(QByteArrayView text, JsonSpan span)
{
    if (!span.spaced)
        return text.sliced(span.begin, span.size()).toByteArray();
    // Copies runs between the whitespace to drop, not single characters.
    QByteArray out;
    out.reserve(span.size());
    const char *data = text.data();
    qsizetype runStart = span.begin;
    bool inString = false;
    for (qsizetype i = span.begin; i < span.end; ++i) {
        const char c = data[i];
        if (inString) {
            if (c == '\\')
                ++i; // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            out.append(data + runStart, i - runStart);
            runStart = i + 1;
        }
    }
    out.append(data + runStart, span.end - runStart);
    return out;
}

} // namespace Broker::Rest
