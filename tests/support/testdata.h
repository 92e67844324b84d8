// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Fixture files under tests/data/<case>/ (BROKER_TEST_DATA_DIR, set for every test by
// broker_add_test): whole config and users files that read better as files than as literals.

#include <QFile>
#include <QString>
#include <QtGlobal>

namespace Broker::Testing {

inline QString testDataPath(const QString &relative)
{
    return QStringLiteral(BROKER_TEST_DATA_DIR "/") + relative;
}

// The bytes of a fixture, exactly as stored; a missing fixture ends the test run (a broken
// checkout, not a result).
inline QByteArray testData(const QString &relative)
{
    QFile file(testDataPath(relative));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read test fixture %s: %s", qPrintable(relative), qPrintable(file.errorString()));
    return file.readAll();
}

} // namespace Broker::Testing
