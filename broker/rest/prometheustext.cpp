// SPDX-License-Identifier: GPL-3.0-or-later
#include "prometheustext.h"

namespace Broker::Rest {

QByteArray promLabel(const QString &value)
{
    QByteArray out;
    for (const char c : value.toUtf8()) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

void appendFamilyHead(QByteArray &out, const char *name, const char *type, const char *help)
{
    out.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(' ')
        .append(type).append('\n');
}

void appendSingle(QByteArray &out, const char *name, const char *type, const char *help, qint64 value)
{
    appendFamilyHead(out, name, type, help);
    out.append(name).append(' ').append(QByteArray::number(value)).append('\n');
}

} // namespace Broker::Rest
