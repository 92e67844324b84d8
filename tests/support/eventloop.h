// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>

namespace Broker::Testing {

// Runs the event loop until `done()` or `timeoutMs` passed; returns done(). Unlike QTRY_*, it
// polls every few milliseconds and never evaluates `done` after the last check.
template<typename Predicate>
bool waitUntil(Predicate done, int timeoutMs = 5000)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    return done();
}

} // namespace Broker::Testing
