// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop's keyring for remote brokers' keys. Run plainly, there is no session bus: every
// answer is an error that says no keyring could be used, and none hangs. Run by with-keyring.sh
// (BROKER_TEST_KEYRING=1) inside a D-Bus session of its own with an unlocked gnome-keyring (a
// Secret Service, as on a desktop): keys are stored, read back, replaced and removed.
#include "ui/keyring.h"

#include <QCoreApplication>
#include <QTest>

#include <optional>

using namespace Broker;
using namespace Broker::Ui;

namespace {

template<typename T>
std::optional<Result<T>> await(const std::function<void(std::function<void(Result<T>)>)> &start)
{
    std::optional<Result<T>> answer;
    start([&](Result<T> result) { answer.emplace(std::move(result)); });
    if (!QTest::qWaitFor([&] { return answer.has_value(); }, 15'000))
        return std::nullopt;
    return answer;
}

} // namespace

class TestKeyring : public QObject
{
    Q_OBJECT

private:
    static bool withKeyring() { return qEnvironmentVariableIntValue("BROKER_TEST_KEYRING") == 1; }
    // A service name of this run alone: a keyring shared with other runs is never touched.
    const QString m_service = QStringLiteral("brokerdesk-test-%1").arg(QCoreApplication::applicationPid());

private Q_SLOTS:
    void initTestCase()
    {
        if (!withKeyring())
            qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");
    }

    void keysAreStoredReadReplacedAndRemoved()
    {
        if (!withKeyring())
            QSKIP("needs a Secret Service: runs as tst_keyring_secret_service (with-keyring.sh)");
        Keyring keyring(m_service);
        QObject context;
        const auto write = [&](const QByteArray &key) {
            return await<void>([&](auto done) { keyring.write(QStringLiteral("server"), key, &context, done); });
        };
        const auto read = [&] {
            return await<QByteArray>([&](auto done) { keyring.read(QStringLiteral("server"), &context, done); });
        };
        std::optional<Result<void>> written = write("first-key-0001");
        QVERIFY(written);
        QVERIFY2(written->ok(), qPrintable(written->ok() ? QString() : written->error().message));
        std::optional<Result<QByteArray>> key = read();
        QVERIFY(key && key->ok());
        QCOMPARE(**key, QByteArray("first-key-0001"));
        written = write("second-key-0002");
        QVERIFY(written && written->ok());
        key = read();
        QVERIFY(key && key->ok());
        QCOMPARE(**key, QByteArray("second-key-0002"));
        keyring.remove(QStringLiteral("server"));
        QTRY_VERIFY_WITH_TIMEOUT([&] {
            const std::optional<Result<QByteArray>> gone = read();
            return gone && !gone->ok() && gone->error().code == ErrorCode::NotFound;
        }(), 15'000);
    }

    void withoutAKeyringEveryAnswerIsAnErrorThatSaysSo()
    {
        if (withKeyring())
            QSKIP("a keyring runs here");
        Keyring keyring(m_service);
        QObject context;
        const std::optional<Result<void>> written =
            await<void>([&](auto done) { keyring.write(QStringLiteral("server"), "a-key", &context, done); });
        QVERIFY2(written, "the keyring did not answer");
        QVERIFY(!written->ok());
        QVERIFY2(written->error().message.contains("keyring"), qPrintable(written->error().message));
        const std::optional<Result<QByteArray>> key =
            await<QByteArray>([&](auto done) { keyring.read(QStringLiteral("server"), &context, done); });
        QVERIFY2(key, "the keyring did not answer");
        QVERIFY(!key->ok());
    }
};

QTEST_GUILESS_MAIN(TestKeyring)
#include "tst_keyring.moc"
