// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>

namespace Broker {

// The node at a path of keys ({"storage", "redis", "host"}), or an undefined node.
YAML::Node nodeAt(const YAML::Node &root, const QStringList &keys);

// Shared state of one YAML file being read: where problems are reported as
// "file:line:column: what is wrong" (1-based, as editors count).
class YamlContext
{
public:
    explicit YamlContext(QString fileName) : m_file(std::move(fileName)) {}

    // Parses `text`; on a syntax error records it and returns an undefined node.
    YAML::Node parse(const QByteArray &text);
    QString location(const YAML::Mark &mark) const;
    // The first error wins: later ones are usually consequences.
    void fail(const YAML::Mark &mark, const QString &what);
    void warn(const YAML::Mark &mark, const QString &what);

    bool failed() const { return m_error.has_value(); }
    QString error() const { return m_error.value_or(QString()); }
    const QStringList &warnings() const { return m_warnings; }
    const QString &fileName() const { return m_file; }

private:
    QString m_file;
    std::optional<QString> m_error;
    QStringList m_warnings;
};

// A mapping in a YAML document, read key by key into typed values. Missing keys leave the output
// as it was (the default); present keys of the wrong type or out of range are errors. finish()
// warns about keys that nobody read.
class YamlSection
{
public:
    YamlSection(YamlContext &context, YAML::Node node, QString path);

    bool isDefined() const { return m_node.IsDefined() && !m_node.IsNull(); }
    bool has(const char *key) const;
    YAML::Mark mark() const { return m_node.Mark(); }
    // Where `key`'s value is (the section's own place when it is absent).
    YAML::Mark markOf(const char *key) const;
    const QString &path() const { return m_path; }

    YamlSection section(const std::string &key);
    // The raw node at `key` (undefined when absent), marked as read: for values that are not
    // mappings of settings, such as the processors: list.
    YAML::Node node(const char *key);
    void integer(const char *key, qint64 &out, qint64 min, qint64 max);
    void integer(const char *key, int &out, int min, int max);
    // A number with or without a fraction (gCore's timeouts in seconds: 2.5).
    void number(const char *key, double &out, double min, double max);
    // A size in bytes: a whole number, or one with K, M or G (powers of 1024; "10M", "512KB").
    void byteSize(const char *key, qint64 &out, qint64 min, qint64 max);
    void boolean(const char *key, bool &out);
    void string(const char *key, QString &out);
    void choice(const char *key, QString &out, const QStringList &allowed);
    // A sequence of strings; a single string is taken as a comma-separated list.
    void stringList(const char *key, QStringList &out);
    // The keys of this mapping, in file order (for mappings whose keys are names: users, roles).
    QStringList keys() const;
    void finish();

private:
    std::optional<YAML::Node> scalar(const char *key, const char *expected);
    // "'path.key' must be <expected>, not '<value>'"
    void refuse(const YAML::Node &value, const char *key, const QString &expected);
    QString keyPath(const char *key) const;

    YamlContext &m_context;
    YAML::Node m_node;
    QString m_path;
    std::set<std::string> m_read;
};

} // namespace Broker
