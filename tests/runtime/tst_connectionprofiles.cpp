// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop's remote connections on disk: kept and read back, never a key, private to the user,
// a damaged file reported and left alone, and profiles checked field by field as typed.
#include "runtime/connectionprofiles.h"
#include "../support/tlscertificates.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestConnectionProfiles : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    TlsCertificates m_certificates{30};

    QString write(const QString &name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        file.write(content);
        return path;
    }

private Q_SLOTS:
    void keptAndReadBackWithoutKeys()
    {
        ConnectionProfiles store(m_dir.filePath("nested/connections.json"));
        QVERIFY(store.load().ok());
        QVERIFY(store.load()->isEmpty()); // no file yet: no connections
        ConnectionProfile staging{QStringLiteral("staging"), QUrl(QStringLiteral("https://broker.staging:8443")),
                                  write("ca.pem", {}), ConnectionProfile::KeySource::Keyring, {}};
        ConnectionProfile lab{QStringLiteral("lab"), QUrl(QStringLiteral("http://10.0.0.5:8080")), {},
                              ConnectionProfile::KeySource::KeyFile, m_dir.filePath("lab.key")};
        QVERIFY(store.save({staging, lab}).ok());
        const Result<QList<ConnectionProfile>> loaded = store.load();
        QVERIFY(loaded.ok());
        QCOMPARE(loaded->size(), 2);
        QCOMPARE(loaded->at(0), staging);
        QCOMPARE(loaded->at(1), lab);
        QFile file(store.file());
        QCOMPARE(file.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
        QVERIFY(file.open(QIODevice::ReadOnly));
        // Only these fields: a key has no place in the file.
        const QStringList allowed{"name", "url", "key_source", "ca_file", "key_file"};
        for (const QJsonValue &connection : QJsonDocument::fromJson(file.readAll()).object().value("connections").toArray()) {
            for (const QString &field : connection.toObject().keys())
                QVERIFY2(allowed.contains(field), qPrintable(field));
        }
    }

    void aDamagedFileIsReportedAndLeftAlone()
    {
        const QByteArray damaged = "{\"connections\": [{\"name\": \"x\", \"url\": ";
        const QString path = write("damaged.json", damaged);
        const Result<QList<ConnectionProfile>> loaded = ConnectionProfiles(path).load();
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().message.contains(path), qPrintable(loaded.error().message));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), damaged);

        // (Not a raw string: moc takes the "//" of a URL in one for a comment.)
        const QString duplicate = write("duplicate.json", "{\"connections\": [{\"name\": \"a\", \"url\": \"http://h:1\", \"key_source\": \"ask\"},"
                                                          " {\"name\": \"a\", \"url\": \"http://h:2\", \"key_source\": \"ask\"}]}");
        QVERIFY(!ConnectionProfiles(duplicate).load().ok());
    }

    void profilesAreCheckedAsTyped_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("caFile");
        QTest::addColumn<int>("keySource");
        QTest::addColumn<QString>("keyFile");
        QTest::addColumn<QString>("error"); // empty: accepted
        if (!m_certificates.make())
            QSKIP(qPrintable(m_certificates.errorString()));
        const QString ca = m_certificates.caFile();
        const QString key = m_dir.filePath("good.key");
        const int keyring = int(ConnectionProfile::KeySource::Keyring);
        const int keyFile = int(ConnectionProfile::KeySource::KeyFile);
        QTest::addRow("plain") << "lab" << "http://127.0.0.1:8080" << "" << keyring << "" << "";
        QTest::addRow("https-with-ca") << "prod" << "https://broker.example:8443" << ca << keyring << "" << "";
        QTest::addRow("key-file") << "lab" << "http://h:1" << "" << keyFile << key << "";
        QTest::addRow("no-name") << " " << "http://h:1" << "" << keyring << "" << "Name";
        QTest::addRow("other-scheme") << "x" << "ftp://h:1" << "" << keyring << "" << "URL";
        QTest::addRow("no-host") << "x" << "http://" << "" << keyring << "" << "URL";
        QTest::addRow("password-in-url") << "x" << "http://u:p@h:1" << "" << keyring << "" << "URL: no user";
        QTest::addRow("ca-for-http") << "x" << "http://h:1" << ca << keyring << "" << "CA file: only";
        QTest::addRow("ca-not-pem") << "x" << "https://h:1" << m_dir.filePath("good.key") << keyring << "" << "no PEM";
        QTest::addRow("key-file-missing") << "x" << "http://h:1" << "" << keyFile << m_dir.filePath("none.key") << "cannot be read";
        QTest::addRow("key-file-empty") << "x" << "http://h:1" << "" << keyFile << m_dir.filePath("empty.key") << "is empty";
    }
    void profilesAreCheckedAsTyped()
    {
        QFETCH(QString, name);
        QFETCH(QString, url);
        QFETCH(QString, caFile);
        QFETCH(int, keySource);
        QFETCH(QString, keyFile);
        QFETCH(QString, error);
        write("good.key", "  secret-key-value  \nsecond line\n");
        write("empty.key", "\n");
        const ConnectionProfile profile{name, QUrl(url), caFile, ConnectionProfile::KeySource(keySource), keyFile};
        const Result<void> checked = checkProfile(profile);
        if (error.isEmpty()) {
            QVERIFY2(checked.ok(), qPrintable(checked.ok() ? QString() : checked.error().message));
        } else {
            QVERIFY(!checked.ok());
            QVERIFY2(checked.error().message.contains(error), qPrintable(checked.error().message));
        }
    }

    void aFileThatCannotBeWrittenIsAnErrorThatNamesIt()
    {
        // Below a regular file no folder can be made, whoever runs the test (root included).
        const QString file = write("not-a-folder", "x") + "/connections.json";
        const Result<void> saved = ConnectionProfiles(file).save(
            {{QStringLiteral("lab"), QUrl(QStringLiteral("http://h:1")), {}, ConnectionProfile::KeySource::AskEachSession, {}}});
        QVERIFY(!saved.ok());
        QVERIFY2(saved.error().message.contains(file), qPrintable(saved.error().message));
    }

    void aKeyFileGivesItsFirstLineTrimmed()
    {
        const Result<QByteArray> key = readKeyFile(write("k.key", "  abc-123 \nignored\n"));
        QVERIFY(key.ok());
        QCOMPARE(*key, QByteArray("abc-123"));
    }
};

QTEST_GUILESS_MAIN(TestConnectionProfiles)
#include "tst_connectionprofiles.moc"
