// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace BrokerCtl {

// Results as a person reads them (tables and key: value lines, times in ISO 8601), as a pipe
// reads them (text: one line per item, fields separated by a tab, no header), or as a script reads
// them (JSON: the broker's answer exactly as it came, one document per line). Errors and notes go
// to stderr in every format.
class Output
{
public:
    enum class Format { Table, Text, Json };
    explicit Output(Format format) : m_format(format) {}
    // "table", "text", "json"; false for anything else.
    static bool parseFormat(const QString &name, Format &format);

    Format format() const { return m_format; }
    // JSON text, printed as it is (one line).
    void json(const QByteArray &text) const;
    // Table: aligned columns under the headers. Text: the rows, tab-separated. JSON: `raw`.
    void table(const QStringList &headers, const QList<QStringList> &rows, const QByteArray &raw) const;
    // Table: "key:  value" lines. Text: "key<TAB>value" lines. JSON: `raw`.
    void keyValues(const QList<QPair<QString, QString>> &pairs, const QByteArray &raw) const;
    void text(const QString &line) const;
    static void note(const QString &line);
    static void error(const QString &line);

    static QString cell(const QJsonValue &value); // numbers without ".0", objects as compact JSON
    // Unix seconds (with fraction) as ISO 8601 UTC ("2026-12-01T13:29:32Z"); "-" for null.
    static QString time(const QJsonValue &value);
    // True for the answer fields that hold unix times (created, timestamp, last_used, ...).
    static bool isTimeField(const QString &key);

private:
    Format m_format;
};

} // namespace BrokerCtl
