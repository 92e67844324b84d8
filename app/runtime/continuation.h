// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>

#include <type_traits>
#include <utility>

namespace Broker {

// Runs `done(result)` in `context`'s thread when `future` finishes, and never once `context` is
// gone. Use this instead of QFuture::then(context, ...): Qt 6.4's version asserts (and in release
// builds invokes on a null object) when the context is destroyed before the future finishes,
// which happens whenever a window closes while the broker is still answering. A future that ends
// without a result (cancelled: the broker went away first) calls nothing.
template<typename T, typename Function>
void whenFinished(const QFuture<T> &future, QObject *context, Function &&done)
{
    auto *watcher = new QFutureWatcher<T>(context); // dies with the context, and its callback with it
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, done = std::forward<Function>(done)]() mutable {
                         watcher->deleteLater();
                         if constexpr (std::is_void_v<T>) {
                             if (!watcher->future().isCanceled())
                                 done();
                         } else {
                             if (watcher->future().resultCount() > 0)
                                 done(watcher->future().result());
                         }
                     });
    watcher->setFuture(future);
}

} // namespace Broker
