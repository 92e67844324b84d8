// SPDX-License-Identifier: GPL-3.0-or-later
// The log's level and its copy in a rotated file. Qt's message handler is process-wide, so the
// file is one per process, guarded by a mutex: any thread may log.
#include "logoutput.h"

#include <QFile>
#include <QLoggingCategory>
#include <QMutex>
#include <QMutexLocker>

#include <memory>

namespace Broker::LogOutput {

namespace {

struct FileOutput
{
    QMutex mutex;
    std::unique_ptr<QFile> file;
    qint64 maxBytes = 0;
    QtMessageHandler previous = nullptr;
    bool installed = false;
};

// Never destroyed: a line logged while the process exits still finds it.
FileOutput &output()
{
    static FileOutput *instance = new FileOutput;
    return *instance;
}

// Called with the mutex held.
void rotate(FileOutput &out)
{
    const QString path = out.file->fileName();
    out.file->close();
    QFile::remove(path + QStringLiteral(".%1").arg(RotatedFiles));
    for (int i = RotatedFiles - 1; i >= 1; --i)
        QFile::rename(path + QStringLiteral(".%1").arg(i), path + QStringLiteral(".%1").arg(i + 1));
    QFile::rename(path, path + QStringLiteral(".1"));
    if (!out.file->open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text))
        out.file.reset(); // the console still has every line
}

void handler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    FileOutput &out = output();
    {
        QMutexLocker lock(&out.mutex);
        if (out.file) {
            out.file->write(qFormatLogMessage(type, context, message).toUtf8() + '\n');
            out.file->flush();
            if (out.file->size() >= out.maxBytes)
                rotate(out);
        }
    }
    if (out.previous)
        out.previous(type, context, message);
}

} // namespace

void setLevel(const QString &level)
{
    // Each level lets through itself and what is more severe.
    const bool debug = level == u"debug";
    const bool info = debug || level == u"info";
    const bool warning = info || level == u"warning";
    const auto rule = [](const char *type, bool on) {
        return QStringLiteral("brokerdesk.*.%1=%2\n").arg(QLatin1StringView(type), on ? QStringLiteral("true") : QStringLiteral("false"));
    };
    QLoggingCategory::setFilterRules(rule("debug", debug) + rule("info", info) + rule("warning", warning));
}

Result<void> setFile(const QString &path, qint64 maxBytes)
{
    FileOutput &out = output();
    std::unique_ptr<QFile> file;
    if (!path.isEmpty()) {
        file = std::make_unique<QFile>(path);
        if (!file->open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("error.log_file: cannot write %1: %2").arg(path, file->errorString())};
    }
    QMutexLocker lock(&out.mutex);
    out.file = std::move(file);
    out.maxBytes = maxBytes;
    if (!out.installed) {
        out.previous = qInstallMessageHandler(handler);
        out.installed = true;
    }
    return {};
}

} // namespace Broker::LogOutput
