// SPDX-License-Identifier: GPL-3.0-or-later
#include "rest/connectionquota.h"

#include <QTest>

using namespace Broker::Rest;

class TestConnectionQuota : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void clientKeys_data();
    void clientKeys();
    void clientLabels_data();
    void clientLabels();
    void capsPerClientAndServer();
    void releaseFreesTheSlot();
};

void TestConnectionQuota::clientKeys_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<bool>("sameClient");
    QTest::addColumn<int>("capOfA");
    QTest::addRow("same-ipv4") << "192.0.2.7" << "192.0.2.7" << true << 3;
    QTest::addRow("other-ipv4") << "192.0.2.7" << "192.0.2.8" << false << 3;
    QTest::addRow("mapped-ipv4-is-ipv4") << "::ffff:192.0.2.7" << "192.0.2.7" << true << 3;
    QTest::addRow("ipv6-same-64") << "2001:db8:1:2::1" << "2001:db8:1:2:ffff::9" << true << 3;
    QTest::addRow("ipv6-other-64") << "2001:db8:1:2::1" << "2001:db8:1:3::1" << false << 3;
    QTest::addRow("loopback-v4-gets-its-cap") << "127.0.0.1" << "127.0.0.1" << true << 5;
    QTest::addRow("each-loopback-address-counts-alone") << "127.0.0.1" << "127.0.0.2" << false << 5;
    QTest::addRow("loopback-v6") << "::1" << "::2" << false << 5;
    QTest::addRow("mapped-loopback") << "::ffff:127.0.0.1" << "127.0.0.1" << true << 5;
}

void TestConnectionQuota::clientKeys()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(bool, sameClient);
    QFETCH(int, capOfA);
    const ConnectionQuota quota({100, 3, 5});
    QCOMPARE(ConnectionQuota::clientKey(QHostAddress(a)) == ConnectionQuota::clientKey(QHostAddress(b)), sameClient);
    QCOMPARE(quota.capFor(QHostAddress(a)), capOfA);
}

void TestConnectionQuota::clientLabels_data()
{
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("label");
    QTest::addRow("ipv4") << "192.0.2.7" << "192.0.2.7";
    QTest::addRow("mapped-ipv4") << "::ffff:192.0.2.7" << "192.0.2.7";
    QTest::addRow("ipv6-is-its-64") << "2001:db8:1:2:aaaa:bbbb:cccc:dddd" << "2001:db8:1:2::/64";
    QTest::addRow("loopback-v6") << "::1" << "::1";
    QTest::addRow("loopback-v4") << "127.0.0.1" << "127.0.0.1";
}

void TestConnectionQuota::clientLabels()
{
    QFETCH(QString, address);
    QFETCH(QString, label);
    QCOMPARE(ConnectionQuota::clientLabel(QHostAddress(address)), label);
}

void TestConnectionQuota::capsPerClientAndServer()
{
    ConnectionQuota quota({5, 2, 3});
    const QHostAddress one(QStringLiteral("192.0.2.1"));
    const QHostAddress two(QStringLiteral("192.0.2.2"));
    const QHostAddress local(QHostAddress::LocalHost);
    QCOMPARE(quota.admit(one), ConnectionQuota::Verdict::Admitted);
    QCOMPARE(quota.admit(one), ConnectionQuota::Verdict::Admitted);
    QCOMPARE(quota.admit(one), ConnectionQuota::Verdict::AddressFull);
    QCOMPARE(quota.admit(two), ConnectionQuota::Verdict::Admitted);
    QCOMPARE(quota.admit(local), ConnectionQuota::Verdict::Admitted);
    QCOMPARE(quota.admit(local), ConnectionQuota::Verdict::Admitted);
    QCOMPARE(quota.admit(local), ConnectionQuota::Verdict::ServerFull); // 5 in all, though local may hold 3
    QCOMPARE(quota.total(), 5);
    QCOMPARE(quota.heldBy(one), 2);
    QCOMPARE(quota.heldBy(QHostAddress(QStringLiteral("192.0.2.9"))), 0);
}

void TestConnectionQuota::releaseFreesTheSlot()
{
    ConnectionQuota quota({10, 1, 1});
    const QHostAddress one(QStringLiteral("192.0.2.1"));
    QCOMPARE(quota.admit(one), ConnectionQuota::Verdict::Admitted);
    QCOMPARE(quota.admit(one), ConnectionQuota::Verdict::AddressFull);
    quota.release(one);
    QCOMPARE(quota.total(), 0);
    QCOMPARE(quota.heldBy(one), 0);
    QCOMPARE(quota.admit(one), ConnectionQuota::Verdict::Admitted);
    quota.release(QHostAddress(QStringLiteral("192.0.2.99"))); // never admitted: nothing changes
    QCOMPARE(quota.total(), 1);
}

QTEST_APPLESS_MAIN(TestConnectionQuota)
#include "tst_connectionquota.moc"
