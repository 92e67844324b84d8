// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace BrokerCtl {

// Results as a person reads them (tables, key: value lines) or as a script reads them (JSON, one
// document per result). Errors and notes go to stderr either way.
class Output
{
public:
    enum class Format { Table, Json };
    explicit Output(Format format) : m_format(format) {}

    Format format() const { return m_format; }
    void json(const QJsonValue &value) const;
    // In table format a table; in JSON format `raw` is printed instead.
    void table(const QStringList &headers, const QList<QStringList> &rows, const QJsonValue &raw) const;
    void keyValues(const QList<QPair<QString, QString>> &pairs, const QJsonValue &raw) const;
    void text(const QString &line) const;
    static void note(const QString &line);
    static void error(const QString &line);

    static QString cell(const QJsonValue &value); // numbers without ".0", objects as compact JSON

private:
    Format m_format;
};

} // namespace BrokerCtl
