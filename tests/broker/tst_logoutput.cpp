// SPDX-License-Identifier: GPL-3.0-or-later
// The log's level (core.log_level, gCore's core.debug) and its rotated file (gCore's
// error.log_to_file, log_file, max_log_size).
#include "errors/logging.h"
#include "errors/logoutput.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;

class TestLogOutput : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void levelSetsEveryCategory();
    void fileRotatesAtItsSize();
    void anUnwritableFileIsAnError();
};

void TestLogOutput::levelSetsEveryCategory()
{
    LogOutput::setLevel(QStringLiteral("debug"));
    QVERIFY(lcEngine().isDebugEnabled());
    QVERIFY(lcStorage().isDebugEnabled());
    LogOutput::setLevel(QStringLiteral("warning"));
    QVERIFY(!lcEngine().isInfoEnabled());
    QVERIFY(lcEngine().isWarningEnabled());
    LogOutput::setLevel(QStringLiteral("error"));
    QVERIFY(!lcConfig().isWarningEnabled());
    QVERIFY(lcConfig().isCriticalEnabled());
    LogOutput::setLevel(QStringLiteral("info"));
    QVERIFY(!lcEngine().isDebugEnabled());
    QVERIFY(lcEngine().isInfoEnabled());
}

void TestLogOutput::fileRotatesAtItsSize()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("broker.log");
    QVERIFY(LogOutput::setFile(path, 4096));
    const QString line = QStringLiteral("x").repeated(100);
    for (int i = 0; i < 200; ++i) // about 20 KiB: four rotations, so the oldest went
        qCInfo(lcEngine).noquote() << i << line;
    QVERIFY(LogOutput::setFile(QString(), 0));
    for (const QString &name : {path, path + ".1", path + ".2", path + ".3"}) {
        QFile file(name);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(name));
        QVERIFY2(file.size() <= 4096 + 200, qPrintable(name));
    }
    QVERIFY(!QFile::exists(path + ".4"));
    QFile current(path), previous(path + ".1");
    QVERIFY(current.open(QIODevice::ReadOnly) && previous.open(QIODevice::ReadOnly));
    QVERIFY((current.readAll() + previous.readAll()).contains("199 " + line.toUtf8())); // the newest line is kept
    qCInfo(lcEngine) << "after the file was ended";
    QFile ended(path);
    QVERIFY(ended.open(QIODevice::ReadOnly));
    QVERIFY(!ended.readAll().contains("after the file was ended"));
}

void TestLogOutput::anUnwritableFileIsAnError()
{
    const Result<void> result = LogOutput::setFile(QStringLiteral("/nonexistent/dir/broker.log"), 4096);
    QVERIFY(!result);
    QVERIFY2(result.error().message.startsWith("error.log_file: cannot write /nonexistent/dir/broker.log"),
             qPrintable(result.error().message));
}

QTEST_GUILESS_MAIN(TestLogOutput)
#include "tst_logoutput.moc"
