// SPDX-License-Identifier: GPL-3.0-or-later
#include "processorsconfig.h"

#include "yamlsection.h"

#include "core/validation.h"

#include <QRegularExpression>
#include <QUrl>

namespace Broker {

namespace {

const QStringList Types{QStringLiteral("webhook"), QStringLiteral("exec")};
// Keys of every entry, and the keys that only one type takes.
const QStringList CommonKeys{QStringLiteral("name"), QStringLiteral("queue"), QStringLiteral("type"),
                             QStringLiteral("concurrency"), QStringLiteral("timeout_ms")};
const QStringList WebhookKeys{QStringLiteral("url"), QStringLiteral("headers"), QStringLiteral("secret")};
const QStringList ExecKeys{QStringLiteral("command")};

// Headers the HTTP client or BrokerDesk itself sets: a configured value would be overridden or
// would break the request.
bool reservedHeader(const QString &name)
{
    const QString lower = name.toLower();
    return lower == u"host" || lower == u"content-length" || lower == u"content-type" || lower == u"transfer-encoding" ||
           lower == u"connection" || lower.startsWith(u"x-brokerdesk-");
}

void readHeaders(YamlContext &context, YamlSection &entry, const YAML::Node &entryNode, BrokerConfig::Processor &processor)
{
    YamlSection headers = entry.section("headers");
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
    const YAML::Node node = headers.isDefined() ? nodeAt(entryNode, {QStringLiteral("headers")}) : YAML::Node();
    for (const auto &pair : node) {
        const QString name = QString::fromStdString(pair.first.Scalar());
        const std::string key = name.toStdString();
        const QString where = headers.path() + QLatin1Char('.') + name;
        if (!token.match(name).hasMatch()) {
            context.fail(pair.first.Mark(), QStringLiteral("'%1': a header name is letters, digits and "
                                                                    "!#$%&'*+.^_`|~- only")
                                                          .arg(where));
            return;
        }
        if (reservedHeader(name)) {
            context.fail(pair.first.Mark(),
                         QStringLiteral("'%1': this header is set by BrokerDesk and cannot be configured").arg(where));
            return;
        }
        QString value;
        headers.string(key.c_str(), value);
        // The value itself is never quoted: headers carry tokens.
        if (value.contains(QLatin1Char('\r')) || value.contains(QLatin1Char('\n'))) {
            context.fail(headers.markOf(key.c_str()), QStringLiteral("'%1' must be one line").arg(where));
            return;
        }
        processor.headers.append({name, value});
    }
}

void readEntry(YamlContext &context, const YAML::Node &node, const QString &path, BrokerConfig::Processor &processor)
{
    YamlSection entry(context, node, path);
    if (!entry.isDefined()) {
        context.fail(node.Mark(), QStringLiteral("'%1' must be a mapping with queue, type and the type's keys").arg(path));
        return;
    }
    entry.string("name", processor.name);
    entry.string("queue", processor.queue);
    entry.choice("type", processor.type, Types);
    if (context.failed())
        return;
    if (processor.queue.isEmpty())
        return context.fail(entry.mark(), QStringLiteral("'%1' needs a 'queue'").arg(path));
    if (const Result<void> name = Validation::queueName(processor.queue); !name)
        return context.fail(entry.markOf("queue"), QStringLiteral("'%1.queue': %2").arg(path, name.error().message));
    if (processor.type.isEmpty())
        return context.fail(entry.mark(), QStringLiteral("'%1' needs a 'type' (%2)").arg(path, Types.join(u", ")));

    const bool webhook = processor.type == u"webhook";
    const QStringList allowed = CommonKeys + (webhook ? WebhookKeys : ExecKeys);
    for (const auto &pair : node) { // the key's own place, not its value's
        const QString key = QString::fromStdString(pair.first.Scalar());
        if (allowed.contains(key))
            continue;
        const bool otherType = (webhook ? ExecKeys : WebhookKeys).contains(key);
        return context.fail(pair.first.Mark(),
                            otherType ? QStringLiteral("'%1.%2' is not a key of %3 processors").arg(path, key, processor.type)
                                      : QStringLiteral("'%1': unknown key '%2' (a processor takes %3)")
                                            .arg(path, key, allowed.join(u", ")));
    }

    entry.integer("concurrency", processor.concurrency, 1, ProcessorDefaults::MaxConcurrency);
    entry.integer("timeout_ms", processor.timeoutMs, 1, ProcessorDefaults::MaxTimeoutMs);
    if (webhook) {
        entry.string("url", processor.url);
        entry.string("secret", processor.secret);
        readHeaders(context, entry, node, processor);
        if (context.failed())
            return;
        if (processor.url.isEmpty())
            return context.fail(entry.mark(), QStringLiteral("'%1' is a webhook and needs a 'url'").arg(path));
        const QUrl url(processor.url, QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty() || (url.scheme() != u"http" && url.scheme() != u"https"))
            return context.fail(entry.markOf("url"), QStringLiteral("'%1.url' must be an http:// or https:// URL").arg(path));
    } else {
        entry.stringList("command", processor.command);
        if (context.failed())
            return;
        if (entry.has("command") && !nodeAt(node, {QStringLiteral("command")}).IsSequence())
            return context.fail(entry.markOf("command"),
                                QStringLiteral("'%1.command' must be a list: the program, then each argument (no "
                                               "shell: [\"/bin/sh\", \"-c\", \"...\"] runs one)")
                                    .arg(path));
        if (processor.command.isEmpty() || processor.command.first().isEmpty())
            return context.fail(entry.mark(), QStringLiteral("'%1' is an exec processor and needs a 'command' list").arg(path));
    }
}

} // namespace

void readProcessors(YamlContext &context, const YAML::Node &node, QList<BrokerConfig::Processor> &out)
{
    if (!node.IsDefined() || node.IsNull())
        return;
    if (!node.IsSequence()) {
        context.fail(node.Mark(), QStringLiteral("'processors' must be a list of processors (- queue: ..., type: ...)"));
        return;
    }
    QStringList names;
    for (std::size_t i = 0; i < node.size(); ++i) {
        BrokerConfig::Processor processor;
        const YAML::Node item = node[i];
        readEntry(context, item, QStringLiteral("processors[%1]").arg(i), processor);
        if (context.failed())
            return;
        if (!processor.name.isEmpty()) {
            if (names.contains(processor.name)) {
                context.fail(item.Mark(), QStringLiteral("'processors[%1]': the name '%2' is taken by another processor")
                                              .arg(i)
                                              .arg(processor.name));
                return;
            }
            names.append(processor.name);
        }
        out.append(processor);
    }
}

} // namespace Broker
