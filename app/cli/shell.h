// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "apiclient.h"
#include "output.h"

#include <QStringList>

namespace BrokerCtl {

// brokerctl's interactive mode: the subcommands at a prompt, with line editing, history (in the
// XDG state folder) and completion of commands and queue names (GNU Readline). With input that is
// not a terminal it reads one command per line, without prompt or editing, so that it can be
// scripted. Returns 0 when every command succeeded, else the exit code of the last that failed.
class Shell
{
public:
    Shell(ApiClient &client, Output::Format format);
    int run();

    // Splits a line into words the way a shell does: quotes ('' and "") and backslashes.
    static QStringList splitWords(const QString &line, QString *error);

private:
    int runLine(const QStringList &words);
    void refreshQueueNames();

    ApiClient &m_client;
    Output m_output;
};

} // namespace BrokerCtl
