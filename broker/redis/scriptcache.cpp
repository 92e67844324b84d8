// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptcache.h"

#include <QCryptographicHash>
#include <QFile>

namespace Broker::Redis {

Script Script::fromFile(const QString &path)
{
    Script script;
    script.name = path.section(QLatin1Char('/'), -1).section(QLatin1Char('.'), 0, 0);
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        script.source = file.readAll();
    script.sha1 = QCryptographicHash::hash(script.source, QCryptographicHash::Sha1).toHex();
    return script;
}

void ScriptRunner::run(const Script &script, const QByteArrayList &keys, const QByteArrayList &args,
                       CommandCallback done)
{
    const QByteArray key = keys.value(0);
    QByteArrayList tail;
    tail.reserve(1 + keys.size() + args.size());
    tail << QByteArray::number(keys.size()) << keys << args;
    const QByteArrayList evalsha = QByteArrayList{QByteArrayLiteral("EVALSHA"), script.sha1} + tail;
    // The source is captured by value so that a reload works however long the reply takes.
    m_client.command(
        evalsha,
        [this, source = script.source, tail = std::move(tail), done = std::move(done), key](CommandResult result) mutable {
            if (!result || result->errorCode() != "NOSCRIPT") {
                done(std::move(result));
                return;
            }
            ++m_reloads;
            m_client.command(QByteArrayList{QByteArrayLiteral("EVAL"), source} + tail, std::move(done), key);
        },
        key);
}

} // namespace Broker::Redis
