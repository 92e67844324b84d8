// SPDX-License-Identifier: GPL-3.0-or-later
// The config's processors: list (ConfigLoader with processorsconfig.cpp): good entries of both
// types with their defaults, and bad ones refused with an error that names the entry and the
// place in the file, never a secret or a header's value.
#include "config/configloader.h"

#include <QTest>

using namespace Broker;

class TestProcessorsConfig : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsBothTypes();
    void noListNoProcessors();
    void badEntries_data();
    void badEntries();
};

void TestProcessorsConfig::readsBothTypes()
{
    const QByteArray text = R"(processors:
  - name: orders-hook
    queue: orders
    type: webhook
    url: https://hooks.example.com/in?token=abc
    concurrency: 4
    timeout_ms: 2500
    headers:
      Authorization: Bearer xyz
      X-Tenant: acme
    secret: s3cret
  - queue: thumbnails
    type: exec
    command: ["/usr/local/bin/thumb", "--size", "128"]
)";
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "p.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QVERIFY2(loaded->warnings.isEmpty(), qPrintable(loaded->warnings.join(u'\n')));
    const QList<BrokerConfig::Processor> &p = loaded->config.processors;
    QCOMPARE(p.size(), 2);
    QCOMPARE(p[0].name, QStringLiteral("orders-hook"));
    QCOMPARE(p[0].queue, QStringLiteral("orders"));
    QCOMPARE(p[0].type, QStringLiteral("webhook"));
    QCOMPARE(p[0].url, QStringLiteral("https://hooks.example.com/in?token=abc"));
    QCOMPARE(p[0].concurrency, 4);
    QCOMPARE(p[0].timeoutMs, 2500);
    const QList<std::pair<QString, QString>> headers{{QStringLiteral("Authorization"), QStringLiteral("Bearer xyz")},
                                                     {QStringLiteral("X-Tenant"), QStringLiteral("acme")}};
    QCOMPARE(p[0].headers, headers);
    QCOMPARE(p[0].secret, QStringLiteral("s3cret"));
    QCOMPARE(p[1].name, QString());
    QCOMPARE(p[1].type, QStringLiteral("exec"));
    QCOMPARE(p[1].command, (QStringList{"/usr/local/bin/thumb", "--size", "128"}));
    // Defaults: one at a time, 30 s.
    QCOMPARE(p[1].concurrency, ProcessorDefaults{}.concurrency);
    QCOMPARE(p[1].timeoutMs, ProcessorDefaults{}.timeoutMs);
    QVERIFY(p[1].headers.isEmpty());
}

void TestProcessorsConfig::noListNoProcessors()
{
    for (const QByteArray &text : {QByteArray("api: {port: 81}\n"), QByteArray("processors: []\n"), QByteArray("processors:\n")}) {
        const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "p.yaml");
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
        QVERIFY(loaded->config.processors.isEmpty());
        QVERIFY(loaded->warnings.isEmpty());
    }
}

void TestProcessorsConfig::badEntries_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    const QByteArray hook = "processors:\n  - queue: q\n    type: webhook\n    url: http://127.0.0.1:9/x\n";
    const QByteArray exec = "processors:\n  - queue: q\n    type: exec\n    command: [/bin/true]\n";

    QTest::addRow("not-a-list") << QByteArray("processors: {queue: q}\n")
                                << "p.yaml:1:13: 'processors' must be a list of processors (- queue: ..., type: ...)";
    QTest::addRow("entry-not-a-mapping") << QByteArray("processors:\n  - orders\n")
                                         << "p.yaml:2:5: 'processors[0]' must be a mapping of keys to values";
    QTest::addRow("unknown-type") << QByteArray("processors:\n  - queue: q\n    type: kafka\n")
                                  << "p.yaml:3:11: 'processors[0].type' must be one of webhook, exec, not 'kafka'";
    QTest::addRow("missing-type") << QByteArray("processors:\n  - queue: q\n")
                                  << "p.yaml:2:5: 'processors[0]' needs a 'type' (webhook, exec)";
    QTest::addRow("missing-queue") << QByteArray("processors:\n  - type: exec\n    command: [x]\n")
                                   << "p.yaml:2:5: 'processors[0]' needs a 'queue'";
    QTest::addRow("bad-queue-name") << QByteArray("processors:\n  - queue: 'a b'\n    type: exec\n    command: [x]\n")
                                    << "p.yaml:2:12: 'processors[0].queue': Invalid queue name";
    QTest::addRow("webhook-without-url") << QByteArray("processors:\n  - queue: q\n    type: webhook\n")
                                         << "p.yaml:2:5: 'processors[0]' is a webhook and needs a 'url'";
    QTest::addRow("bad-url-scheme") << QByteArray("processors:\n  - queue: q\n    type: webhook\n    url: ftp://h/x\n")
                                    << "p.yaml:4:10: 'processors[0].url' must be an http:// or https:// URL";
    QTest::addRow("exec-without-command") << QByteArray("processors:\n  - queue: q\n    type: exec\n")
                                          << "p.yaml:2:5: 'processors[0]' is an exec processor and needs a 'command' list";
    QTest::addRow("command-as-a-string") << QByteArray("processors:\n  - queue: q\n    type: exec\n    command: ls -l\n")
                                         << "p.yaml:4:14: 'processors[0].command' must be a list: the program, then each "
                                            "argument (no shell: [\"/bin/sh\", \"-c\", \"...\"] runs one)";
    QTest::addRow("zero-concurrency") << hook + "    concurrency: 0\n"
                                      << "p.yaml:5:18: 'processors[0].concurrency' must be a whole number from 1 to 256, not '0'";
    QTest::addRow("negative-timeout") << exec + "    timeout_ms: -5\n"
                                      << "p.yaml:5:17: 'processors[0].timeout_ms' must be a whole number from 1 to 3600000, not '-5'";
    QTest::addRow("unknown-key") << hook + "    timout_ms: 5\n"
                                 << "p.yaml:5:5: 'processors[0]': unknown key 'timout_ms' (a processor takes name, queue, "
                                    "type, concurrency, timeout_ms, url, headers, secret)";
    QTest::addRow("key-of-the-other-type") << exec + "    url: http://h/\n"
                                           << "p.yaml:5:5: 'processors[0].url' is not a key of exec processors";
    QTest::addRow("secret-on-exec") << exec + "    secret: hunter2\n"
                                    << "p.yaml:5:5: 'processors[0].secret' is not a key of exec processors";
    QTest::addRow("reserved-header") << hook + "    headers: {Content-Length: '5'}\n"
                                     << "p.yaml:5:15: 'processors[0].headers.Content-Length': this header is set by "
                                        "BrokerDesk and cannot be configured";
    QTest::addRow("bad-header-name") << hook + "    headers: {'a b': secretvalue}\n"
                                     << "p.yaml:5:15: 'processors[0].headers.a b': a header name is letters, digits and "
                                        "!#$%&'*+.^_`|~- only";
    QTest::addRow("headers-not-a-mapping") << hook + "    headers: [a]\n"
                                           << "p.yaml:5:14: 'processors[0].headers' must be a mapping of keys to values";
    QTest::addRow("second-entry-named") << hook + "  - queue: q\n    type: exec\n    command: []\n"
                                        << "p.yaml:5:5: 'processors[1]' is an exec processor and needs a 'command' list";
    QTest::addRow("name-taken") << QByteArray("processors:\n  - {name: a, queue: q, type: exec, command: [x]}\n"
                                              "  - {name: a, queue: r, type: exec, command: [y]}\n")
                                << "p.yaml:3:5: 'processors[1]': the name 'a' is taken by another processor";
}

void TestProcessorsConfig::badEntries()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "p.yaml");
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().message, error);
    // Never the secret or a header's value.
    QVERIFY(!loaded.error().message.contains(u"hunter2"));
    QVERIFY(!loaded.error().message.contains(u"secretvalue"));
}

QTEST_APPLESS_MAIN(TestProcessorsConfig)
#include "tst_processorsconfig.moc"
