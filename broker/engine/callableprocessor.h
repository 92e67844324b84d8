// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "asyncprocessor.h"

namespace Broker {

class ErrorManager;

// A C++ callable (Processor) as an AsyncProcessor: it finishes before process() returns. An
// exception it throws nacks the message and is recorded with the ErrorManager (when there is one).
class CallableProcessor : public AsyncProcessor
{
public:
    CallableProcessor(QString queue, Processor processor, ErrorManager *errors);

    void process(const Message &message, ProcessorDone done) override;
    QString kind() const override { return QStringLiteral("callable"); }

private:
    QString m_queue;
    Processor m_processor;
    ErrorManager *m_errors;
};

} // namespace Broker
