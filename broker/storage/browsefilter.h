// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/browsequery.h"
#include "core/message.h"
#include "storedmessage.h"

#include <optional>

namespace Broker {

// A BrowseQuery's filter, ready to be asked of many messages: the id is parsed once, the text
// searched as bytes. `origin` narrows to dead-lettered messages (from that queue; "" from any),
// which is how the Dead state reads a dead-letter queue.
class BrowseFilter
{
public:
    explicit BrowseFilter(const BrowseQuery &query, std::optional<QString> origin = std::nullopt);

    // Whether a walk must examine messages one by one (and so is bounded by MaxScan).
    bool isActive() const { return m_active; }
    bool matches(const StoredMessage &message) const;
    bool matches(const Message &message) const;

private:
    bool matchesBody(QByteArrayView data, const QJsonObject &headers) const;

    QByteArray m_text;
    QString m_headerKey;
    std::optional<QString> m_headerValue;
    QString m_id;
    std::optional<quint64> m_sequence; // m_id as a sequence number, when it is one of this broker's
    std::optional<QString> m_origin;
    bool m_active = false;
};

// Gathers one page while a store walks the messages of a state in order: skips `offset` matches,
// keeps up to `limit`, and stops a filtered walk after MaxScan messages.
class BrowsePager
{
public:
    // `inState`: how many messages the walk could visit.
    BrowsePager(const BrowseQuery &query, const BrowseFilter &filter, qint64 inState);

    // One message, in order; `make` builds it when it lands on the page. False: stop walking.
    template<typename Make>
    bool visit(bool matches, Make &&make)
    {
        ++m_page.scanned;
        if (matches) {
            const qint64 index = m_matched++;
            if (index >= m_offset && m_page.messages.size() < m_limit)
                m_page.messages.append(make());
        }
        if (m_filtered)
            return m_page.scanned < BrowseQuery::MaxScan;
        return m_page.messages.size() < m_limit;
    }
    BrowsePage finish();

private:
    BrowsePage m_page;
    qint64 m_offset;
    qint64 m_limit;
    qint64 m_inState;
    qint64 m_matched = 0;
    bool m_filtered;
};

} // namespace Broker
