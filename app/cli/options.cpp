// SPDX-License-Identifier: GPL-3.0-or-later
#include "options.h"

#include <QCommandLineParser>

namespace BrokerCtl {

void defineCommandOptions(QCommandLineParser &parser)
{
    const auto valueOption = [&](const char *name, const char *help, const char *valueName) {
        parser.addOption(QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help),
                                            QString::fromLatin1(valueName)));
    };
    const auto flag = [&](const char *name, const char *help) {
        parser.addOption(QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help)));
    };
    parser.addOption(QCommandLineOption(
        {QStringLiteral("o"), QStringLiteral("output")},
        QStringLiteral(
            "table, text (one line per item, tab-separated) or json (default: table on a terminal, else json)."),
        QStringLiteral("FORMAT")));
    valueOption("type", "Queue type: list, priority, stream.", "T");
    valueOption("max-size", "Queue max_size.", "N");
    valueOption("ttl", "Queue ttl in seconds.", "S");
    valueOption("visibility", "Lease length (visibility_timeout) in seconds.", "S");
    valueOption("max-deliveries", "Deliveries before dead-lettering.", "N");
    valueOption("dlq", "Dead-letter queue name, or true for NAME.dlq.", "NAME");
    valueOption("offset", "Browse from this position.", "N");
    valueOption("limit", "At most this many.", "N");
    valueOption("file", "Read the message(s) from this file.", "F");
    flag("lines", "One message per line (JSON lines), published in batches.");
    valueOption("priority", "Message priority (priority queues).", "N");
    valueOption("delay", "Seconds before the message can be delivered (or redelivered, for nack).", "S");
    valueOption("count", "Messages per consume.", "N");
    flag("lease", "Lease messages (acknowledge=false) instead of removing them.");
    valueOption("wait", "Long-poll up to this many seconds.", "S");
    valueOption("group", "Consumer group (stream queues).", "G");
    valueOption("consumer", "Consumer name within the group.", "C");
    flag("follow", "Keep consuming until interrupted.");
    valueOption("receipt", "Receipt of the lease (from consume --lease).", "R");
    valueOption("roles", "Comma-separated roles.", "R");
    valueOption("name", "Display name.", "N");
    valueOption("messages", "demo: messages to send.", "N");
    valueOption("batch", "Messages per request (demo, export messages, import messages).", "N");
    valueOption("state", "queues browse, export messages: ready (default), delayed, in_flight, dead; export: or all.", "S");
    valueOption("queue", "processors: only the processors of this queue.", "Q");
    valueOption("kinds", "watch: only these message event kinds (published, delivered, acked, nacked, ...).", "K[,K]");
    flag("counters", "watch: queue counters as they change, besides message events.");
    valueOption("url", "Broker URL (API_URL; default http://localhost:8080); for profiles add too.", "URL");
    valueOption("key-file", "profiles add: the file holding the profile's API key.", "FILE");
    valueOption("cacert", "https: trust the CA certificates in this PEM file instead of the system's (API_CACERT); "
                          "for profiles add too.", "FILE");
    flag("insecure", "https: do not verify the broker's certificate (warned about on every use); for profiles add too.");
    valueOption("key-command", "profiles add: a command that prints the profile's API key.", "CMD");
}

} // namespace BrokerCtl
