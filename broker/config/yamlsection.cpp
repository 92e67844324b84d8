// SPDX-License-Identifier: GPL-3.0-or-later
#include "yamlsection.h"

#include <limits>

namespace Broker {

YAML::Node nodeAt(const YAML::Node &root, const QStringList &keys)
{
    YAML::Node node = root;
    for (const QString &key : keys) {
        if (!node.IsMap())
            return YAML::Node(YAML::NodeType::Undefined);
        const YAML::Node child = static_cast<const YAML::Node &>(node)[key.toStdString()];
        if (!child.IsDefined()) // a missing key's node is invalid: reset() would throw
            return YAML::Node(YAML::NodeType::Undefined);
        node.reset(child);
    }
    return node;
}

YAML::Node YamlContext::parse(const QByteArray &text)
{
    try {
        return YAML::Load(text.toStdString());
    } catch (const YAML::ParserException &e) {
        fail(e.mark, QString::fromStdString(e.msg));
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

QString YamlContext::location(const YAML::Mark &mark) const
{
    if (mark.is_null())
        return m_file;
    return QStringLiteral("%1:%2:%3").arg(m_file).arg(mark.line + 1).arg(mark.column + 1);
}

void YamlContext::fail(const YAML::Mark &mark, const QString &what)
{
    if (!m_error)
        m_error = location(mark) + QStringLiteral(": ") + what;
}

void YamlContext::warn(const YAML::Mark &mark, const QString &what)
{
    m_warnings.append(location(mark) + QStringLiteral(": ") + what);
}

YamlSection::YamlSection(YamlContext &context, YAML::Node node, QString path)
    : m_context(context), m_node(std::move(node)), m_path(std::move(path))
{
    if (isDefined() && !m_node.IsMap()) {
        m_context.fail(m_node.Mark(), QStringLiteral("'%1' must be a mapping of keys to values").arg(m_path));
        m_node = YAML::Node(YAML::NodeType::Undefined);
    }
}

bool YamlSection::has(const char *key) const
{
    return isDefined() && m_node[key].IsDefined();
}

YAML::Mark YamlSection::markOf(const char *key) const
{
    return has(key) ? m_node[key].Mark() : m_node.Mark();
}

void YamlSection::refuse(const YAML::Node &value, const char *key, const QString &expected)
{
    m_context.fail(value.Mark(), QStringLiteral("'%1' must be %2, not '%3'")
                                     .arg(keyPath(key), expected, QString::fromStdString(value.Scalar())));
}

QString YamlSection::keyPath(const char *key) const
{
    return m_path.isEmpty() ? QString::fromUtf8(key) : m_path + QLatin1Char('.') + QString::fromUtf8(key);
}

YamlSection YamlSection::section(const std::string &key)
{
    m_read.insert(key);
    const QString path = keyPath(key.c_str());
    if (!isDefined())
        return YamlSection(m_context, YAML::Node(YAML::NodeType::Undefined), path);
    return YamlSection(m_context, m_node[key], path);
}

YAML::Node YamlSection::node(const char *key)
{
    m_read.insert(key);
    if (!has(key))
        return YAML::Node(YAML::NodeType::Undefined);
    return m_node[key];
}

std::optional<YAML::Node> YamlSection::scalar(const char *key, const char *expected)
{
    m_read.insert(key);
    if (!isDefined())
        return std::nullopt;
    const YAML::Node value = m_node[key];
    if (!value.IsDefined() || value.IsNull())
        return std::nullopt;
    if (!value.IsScalar()) {
        m_context.fail(value.Mark(), QStringLiteral("'%1' must be %2").arg(keyPath(key), QLatin1StringView(expected)));
        return std::nullopt;
    }
    return value;
}

void YamlSection::integer(const char *key, qint64 &out, qint64 min, qint64 max)
{
    const std::optional<YAML::Node> value = scalar(key, "a whole number");
    if (!value)
        return;
    bool ok = false;
    const qint64 number = QString::fromStdString(value->Scalar()).trimmed().toLongLong(&ok);
    if (!ok || number < min || number > max) {
        refuse(*value, key, QStringLiteral("a whole number from %1 to %2").arg(min).arg(max));
        return;
    }
    out = number;
}

void YamlSection::integer(const char *key, int &out, int min, int max)
{
    qint64 wide = out;
    integer(key, wide, min, max);
    out = int(wide);
}

void YamlSection::number(const char *key, double &out, double min, double max)
{
    const std::optional<YAML::Node> value = scalar(key, "a number");
    if (!value)
        return;
    bool ok = false;
    const double number = QString::fromStdString(value->Scalar()).trimmed().toDouble(&ok);
    if (!ok || !(number >= min && number <= max)) {
        refuse(*value, key, QStringLiteral("a number from %1 to %2").arg(min).arg(max));
        return;
    }
    out = number;
}

void YamlSection::byteSize(const char *key, qint64 &out, qint64 min, qint64 max)
{
    const std::optional<YAML::Node> value = scalar(key, "a size in bytes");
    if (!value)
        return;
    QString text = QString::fromStdString(value->Scalar()).trimmed().toUpper();
    if (text.endsWith(QLatin1Char('B')))
        text.chop(1);
    qint64 unit = 1;
    if (text.endsWith(QLatin1Char('K')) || text.endsWith(QLatin1Char('M')) || text.endsWith(QLatin1Char('G'))) {
        unit = text.endsWith(QLatin1Char('K')) ? 1024 : text.endsWith(QLatin1Char('M')) ? 1024 * 1024 : 1024 * 1024 * 1024;
        text.chop(1);
    }
    bool ok = false;
    const qint64 number = text.trimmed().toLongLong(&ok);
    if (!ok || number < 0 || number > max / unit || number * unit < min) {
        refuse(*value, key, QStringLiteral("a size from %1 to %2 bytes (K, M and G allowed)").arg(min).arg(max));
        return;
    }
    out = number * unit;
}

void YamlSection::boolean(const char *key, bool &out)
{
    const std::optional<YAML::Node> value = scalar(key, "true or false");
    if (!value)
        return;
    const QString text = QString::fromStdString(value->Scalar()).trimmed().toLower();
    static const QStringList yes{QStringLiteral("true"), QStringLiteral("yes"), QStringLiteral("on"), QStringLiteral("1")};
    static const QStringList no{QStringLiteral("false"), QStringLiteral("no"), QStringLiteral("off"), QStringLiteral("0")};
    if (yes.contains(text)) {
        out = true;
    } else if (no.contains(text)) {
        out = false;
    } else {
        refuse(*value, key, QStringLiteral("true or false"));
    }
}

void YamlSection::string(const char *key, QString &out)
{
    const std::optional<YAML::Node> value = scalar(key, "a string");
    if (value)
        out = QString::fromStdString(value->Scalar());
}

void YamlSection::choice(const char *key, QString &out, const QStringList &allowed)
{
    const std::optional<YAML::Node> value = scalar(key, "a string");
    if (!value)
        return;
    const QString text = QString::fromStdString(value->Scalar()).trimmed();
    if (!allowed.contains(text)) {
        refuse(*value, key, QStringLiteral("one of %1").arg(allowed.join(QStringLiteral(", "))));
        return;
    }
    out = text;
}

void YamlSection::stringList(const char *key, QStringList &out)
{
    m_read.insert(key);
    if (!isDefined())
        return;
    const YAML::Node value = m_node[key];
    if (!value.IsDefined() || value.IsNull())
        return;
    QStringList items;
    if (value.IsScalar()) {
        for (const QString &part : QString::fromStdString(value.Scalar()).split(QLatin1Char(','), Qt::SkipEmptyParts))
            items.append(part.trimmed());
    } else if (value.IsSequence()) {
        for (const YAML::Node &item : value) {
            if (!item.IsScalar()) {
                m_context.fail(item.Mark(), QStringLiteral("'%1' must be a list of strings").arg(keyPath(key)));
                return;
            }
            items.append(QString::fromStdString(item.Scalar()));
        }
    } else {
        m_context.fail(value.Mark(), QStringLiteral("'%1' must be a list of strings").arg(keyPath(key)));
        return;
    }
    out = items;
}

QStringList YamlSection::keys() const
{
    QStringList out;
    if (!isDefined())
        return out;
    for (const auto &entry : m_node)
        out.append(QString::fromStdString(entry.first.Scalar()));
    return out;
}

void YamlSection::finish()
{
    if (!isDefined())
        return;
    for (const auto &entry : m_node) {
        const std::string key = entry.first.Scalar();
        if (!m_read.contains(key))
            m_context.warn(entry.first.Mark(), QStringLiteral("unknown key '%1' (ignored)").arg(keyPath(key.c_str())));
    }
}

} // namespace Broker
