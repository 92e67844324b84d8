// SPDX-License-Identifier: GPL-3.0-or-later
// Key slots as Redis Cluster computes them (values from CLUSTER KEYSLOT on redis-server 7.0).
#include "redis/hashslot.h"

#include <QTest>

using namespace Broker::Redis;

class TestHashSlot : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void slotOf_data();
    void slotOf();
    void tagSharedByAQueuesKeys();
};

void TestHashSlot::slotOf_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("slot");
    QTest::addRow("plain") << QByteArray("foo") << 12182;
    QTest::addRow("crc16-check-value") << QByteArray("123456789") << 12739; // CRC16/XMODEM 0x31C3
    QTest::addRow("empty") << QByteArray() << 0;
    QTest::addRow("tag") << QByteArray("{user1000}.following") << 3443;
    QTest::addRow("tag-same-as-bare") << QByteArray("x{foo}y") << 12182;
    QTest::addRow("empty-tag-hashes-whole-key") << QByteArray("foo{}{bar}") << 8363;
    QTest::addRow("first-close-ends-tag") << QByteArray("foo{{bar}}zap") << 4015;
    QTest::addRow("first-tag-only") << QByteArray("foo{bar}{zap}") << 5061;
    QTest::addRow("unclosed-brace") << QByteArray("foo{bar") << 15278;
    QTest::addRow("high-bytes") << QByteArray("\xff\xfe\x80") << 11813;
}

void TestHashSlot::slotOf()
{
    QFETCH(QByteArray, key);
    QFETCH(int, slot);
    QCOMPARE(hashSlot(key), slot);
}

void TestHashSlot::tagSharedByAQueuesKeys()
{
    const int meta = hashSlot("brokerdesk:{orders}:meta");
    QCOMPARE(hashSlot("brokerdesk:{orders}:ready"), meta);
    QCOMPARE(hashSlot("brokerdesk:{orders}:g:workers"), meta);
    QCOMPARE(meta, hashSlot("orders"));
    QVERIFY(hashSlot("brokerdesk:{orders-dlq}:meta") != meta);
}

QTEST_APPLESS_MAIN(TestHashSlot)
#include "tst_hashslot.moc"
