// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCommandLineParser;

namespace BrokerCtl {

// Every option of brokerctl's commands; the command line and the interactive shell share them.
void defineCommandOptions(QCommandLineParser &parser);

} // namespace BrokerCtl
