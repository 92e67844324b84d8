// SPDX-License-Identifier: GPL-3.0-or-later
#include "callableprocessor.h"

#include "errors/errormanager.h"

#include <exception>

namespace Broker {

CallableProcessor::CallableProcessor(QString queue, Processor processor, ErrorManager *errors)
    : m_queue(std::move(queue)), m_processor(std::move(processor)), m_errors(errors)
{
}

void CallableProcessor::process(const Message &message, ProcessorDone done)
{
    try {
        if (m_processor(message))
            return done(ProcessorOutcome::ack());
        return done(ProcessorOutcome::nack(QStringLiteral("declined")));
    } catch (const std::exception &e) {
        const QString error = QStringLiteral("threw: %1").arg(QString::fromLocal8Bit(e.what()));
        if (m_errors) {
            m_errors->record(Severity::Error, QStringLiteral("engine"), QStringLiteral("processor_failed"),
                             QStringLiteral("Processor on queue %1 %2").arg(m_queue, error));
        }
        done(ProcessorOutcome::nack(error));
    }
}

} // namespace Broker
