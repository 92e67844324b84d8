// SPDX-License-Identifier: GPL-3.0-or-later
#include "browsefilter.h"

#include "core/messageid.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>

namespace Broker {

namespace {

// A header's value as the filter compares it: a string's own text, anything else compact JSON.
QString headerText(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

} // namespace

BrowseFilter::BrowseFilter(const BrowseQuery &query, std::optional<QString> origin)
    : m_text(query.text.toUtf8()),
      m_headerKey(query.headerKey),
      m_headerValue(query.headerValue),
      m_id(query.id),
      m_sequence(query.id.isEmpty() ? std::nullopt : MessageId::parse(query.id)),
      m_origin(std::move(origin)),
      m_active(query.isFiltered() || m_origin.has_value())
{
}

bool BrowseFilter::matchesBody(QByteArrayView data, const QJsonObject &headers) const
{
    if (!m_text.isEmpty() && !data.contains(m_text))
        return false;
    if (!m_headerKey.isEmpty()) {
        const auto it = headers.constFind(m_headerKey);
        if (it == headers.constEnd())
            return false;
        if (m_headerValue && headerText(it.value()) != *m_headerValue)
            return false;
    }
    return true;
}

bool BrowseFilter::matches(const StoredMessage &message) const
{
    if (!m_id.isEmpty() && (!m_sequence || *m_sequence != message.sequence))
        return false;
    const MessageExtras *extras = message.extras.get();
    if (m_origin) {
        if (!extras || extras->originQueue.isEmpty() || (!m_origin->isEmpty() && extras->originQueue != *m_origin))
            return false;
    }
    static const QJsonObject NoHeaders;
    return matchesBody(message.data(), extras ? extras->headers : NoHeaders);
}

bool BrowseFilter::matches(const Message &message) const
{
    if (!m_id.isEmpty() && message.id != m_id)
        return false;
    if (m_origin) {
        if (message.originQueue.isEmpty() || (!m_origin->isEmpty() && message.originQueue != *m_origin))
            return false;
    }
    return matchesBody(message.data, message.headers);
}

BrowsePager::BrowsePager(const BrowseQuery &query, const BrowseFilter &filter, qint64 inState)
    : m_offset(query.offset), m_limit(query.limit), m_inState(inState), m_filtered(filter.isActive())
{
}

BrowsePage BrowsePager::finish()
{
    BrowsePage page = std::move(m_page);
    if (m_filtered) {
        page.total = m_matched;
        page.truncated = page.scanned < m_inState;
    } else {
        page.total = m_inState;
    }
    const qint64 next = m_offset + page.messages.size();
    page.nextOffset = next < page.total ? next : -1;
    return page;
}

} // namespace Broker
