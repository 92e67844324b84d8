// SPDX-License-Identifier: GPL-3.0-or-later
#include "redismessage.h"

#include "core/jsonfields.h"
#include "core/messageid.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

namespace Broker::RedisMessage {

namespace {

// The layout's fixed pieces (see redismessage.h), and the longest number written.
constexpr std::string_view IdOpen = "{\"id\":\"", Ts = "\",\"ts\":", Pr = ",\"pr\":", T = ",\"t\":", P = ",\"p\":",
                           H = ",\"h\":", Data = ",\"d\":";
constexpr qsizetype MaxNumberLength = 20; // -9223372036854775808

char *put(char *w, QByteArrayView text)
{
    std::memcpy(w, text.data(), size_t(text.size()));
    return w + text.size();
}

// QByteArray::number goes through snprintf: about 500 instructions a number.
char *putNumber(char *w, qint64 number)
{
    return std::to_chars(w, w + MaxNumberLength, number).ptr;
}

} // namespace

Encoder::Encoder(qint64 publishedUs, QByteArrayView publisher)
{
    // Both pieces in one buffer, written in place: a single publish makes an encoder too.
    m_shared.resize(qsizetype(Ts.size() + Pr.size() + T.size() + P.size() + H.size()) + 2 * MaxNumberLength
                    + JsonFields::stringLength(publisher));
    char *const begin = m_shared.data();
    char *w = put(putNumber(put(begin, Ts), publishedUs / 1000), Pr);
    m_split = w - begin;
    w = put(JsonFields::writeString(put(putNumber(put(w, T), publishedUs), P), publisher), H);
    m_shared.truncate(w - begin);
}

QByteArray Encoder::encode(quint64 sequence, const NewMessage &message) const
{
    // Most messages have no headers: "{}" without making a document for them.
    const QByteArray headers = message.headers.isEmpty() ? QByteArrayLiteral("{}")
                                                         : QJsonDocument(message.headers).toJson(QJsonDocument::Compact);
    // Sized once and written in place: appends of each piece cost more than the pieces (a
    // batch's messages are most of its cost).
    const qsizetype bound = qsizetype(IdOpen.size()) + MessageId::TextLength + m_shared.size() + MaxNumberLength
                            + headers.size() + qsizetype(Data.size())
                            + JsonFields::stringLength(message.data) + 1;
    QByteArray out(bound, Qt::Uninitialized);
    char *w = put(out.data(), IdOpen);
    MessageId::write(sequence, w);
    w = putNumber(put(w + MessageId::TextLength, afterId()), message.priority);
    w = put(put(w, afterPriority()), headers);
    w = JsonFields::writeString(put(w, Data), message.data);
    *w++ = '}';
    out.truncate(w - out.constData());
    return out;
}

QByteArray encode(quint64 sequence, qint64 publishedUs, const NewMessage &message, QByteArrayView publisher)
{
    return Encoder(publishedUs, publisher).encode(sequence, message);
}

namespace {

// Reads the layout encode() writes (and the scripts keep), field by field: a consumed message
// costs a few thousand instructions here against several times that through QJsonDocument.
class StoredReader
{
public:
    explicit StoredReader(const QByteArray &stored) : m_p(stored.constData()), m_end(m_p + stored.size()) {}

    bool literal(std::string_view text)
    {
        if (size_t(m_end - m_p) < text.size() || std::memcmp(m_p, text.data(), text.size()) != 0)
            return false;
        m_p += text.size();
        return true;
    }
    bool string(QByteArray &out) { return JsonFields::readString(m_p, m_end, out); }
    bool string(QString &out)
    {
        QByteArray utf8;
        if (!string(utf8))
            return false;
        out = QString::fromUtf8(utf8);
        return true;
    }
    bool integer(qint64 &out)
    {
        const auto [end, error] = std::from_chars(m_p, m_end, out);
        if (error != std::errc() || end == m_p)
            return false;
        m_p = end;
        return true;
    }
    // The object that begins here, as its text (strings inside may hold braces).
    bool objectText(QByteArrayView &out)
    {
        const char *begin = m_p;
        int depth = 0;
        QByteArray skipped;
        while (m_p < m_end) {
            if (*m_p == '"') {
                skipped.clear();
                if (!string(skipped))
                    return false;
                continue;
            }
            if (*m_p == '{') {
                ++depth;
            } else if (*m_p == '}' && --depth == 0) {
                ++m_p;
                out = QByteArrayView(begin, m_p - begin);
                return true;
            }
            ++m_p;
        }
        return false;
    }
    bool atEnd() const { return m_p == m_end; }

private:
    const char *m_p;
    const char *m_end;
};

bool decodeStored(const QByteArray &stored, Message &out)
{
    StoredReader in(stored);
    QByteArray id;
    qint64 ignored = 0;
    if (!in.literal("{\"id\":") || !in.string(id) || !in.literal(",\"ts\":") || !in.integer(ignored))
        return false;
    out.id = QString::fromLatin1(id);
    if (in.literal(",\"dl\":{\"q\":")) {
        qint64 at = 0;
        if (!in.string(out.originQueue) || !in.literal(",\"r\":") || !in.string(out.deadLetterReason)
            || !in.literal(",\"at\":") || !in.integer(at) || !in.literal("}"))
            return false;
        out.deadLetteredAt = double(at) / 1000.0;
    }
    qint64 priority = 0;
    qint64 publishedUs = 0;
    QByteArrayView headers;
    if (!in.literal(Pr) || !in.integer(priority) || !in.literal(T) || !in.integer(publishedUs) || !in.literal(P)
        || !in.string(out.publisher) || !in.literal(H) || !in.objectText(headers) || !in.literal(Data))
        return false;
    if (!in.string(out.data) || !in.literal("}") || !in.atEnd())
        return false;
    if (priority < std::numeric_limits<int>::min() || priority > std::numeric_limits<int>::max())
        return false;
    out.priority = int(priority);
    out.timestamp = double(publishedUs) / 1e6;
    if (headers.size() > 2) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(headers.toByteArray(), &error);
        if (error.error != QJsonParseError::NoError)
            return false;
        out.headers = document.object();
    }
    return !out.id.isEmpty();
}

// Any other JSON object of the same fields (another writer's order or spacing).
bool decodeAnyJson(const QByteArray &stored, Message &out)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(stored, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return false;
    const QJsonObject object = document.object();
    const QJsonValue data = object.value(QLatin1StringView("d"));
    if (!data.isString())
        return false;
    out.id = object.value(QLatin1StringView("id")).toString();
    out.data = data.toString().toUtf8();
    out.headers = object.value(QLatin1StringView("h")).toObject();
    out.publisher = object.value(QLatin1StringView("p")).toString();
    out.timestamp = object.value(QLatin1StringView("t")).toDouble() / 1e6;
    out.priority = object.value(QLatin1StringView("pr")).toInt();
    const QJsonObject deadLetter = object.value(QLatin1StringView("dl")).toObject();
    out.originQueue = deadLetter.value(QLatin1StringView("q")).toString();
    out.deadLetterReason = deadLetter.value(QLatin1StringView("r")).toString();
    out.deadLetteredAt = deadLetter.value(QLatin1StringView("at")).toDouble() / 1000.0;
    return !out.id.isEmpty();
}

} // namespace

bool decode(const QByteArray &stored, const QString &queue, Message &out)
{
    out = Message();
    out.queue = queue;
    if (decodeStored(stored, out))
        return true;
    out = Message();
    out.queue = queue;
    return decodeAnyJson(stored, out);
}

QString idOf(const QByteArray &stored)
{
    // {"id":"<id>", — the id is always first.
    constexpr qsizetype Start = 7;
    const qsizetype end = stored.indexOf('"', Start);
    if (!stored.startsWith("{\"id\":\"") || end < 0)
        return {};
    return QString::fromLatin1(stored.mid(Start, end - Start));
}

} // namespace Broker::RedisMessage
