// SPDX-License-Identifier: GPL-3.0-or-later
#include "security/apikey.h"
#include "security/userdirectory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Broker;

class TestUserDirectory : public QObject
{
    Q_OBJECT

private:
    static QString write(const QTemporaryDir &dir, const QByteArray &text)
    {
        const QString path = dir.filePath("users.yaml");
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }
    static QByteArray read(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    ManualClock m_clock;
    AccessPolicy m_policy;

private Q_SLOTS:
    void placeholdersAreReplacedAndOnlyHashesWritten();
    void realPlaintextKeysWork();
    void errorsPointAtTheLine_data();
    void errorsPointAtTheLine();
    void missingFileCanBeCreated();
    void changesPersist();
    void failedWriteChangesNothing();
    void keysAreUnique();
};

void TestUserDirectory::placeholdersAreReplacedAndOnlyHashesWritten()
{
    QTemporaryDir dir;
    const QString path = write(dir, read(BROKER_SOURCE_DIR "/config/users.yaml.example"));
    UserDirectory users(m_policy, m_clock);
    const Result<QList<IssuedKey>> issued = users.load(path);
    QVERIFY2(issued.ok(), issued.ok() ? "" : qPrintable(issued.error().message));
    QCOMPARE(issued->size(), 3);

    const QByteArray written = read(path);
    QVERIFY(!written.contains("-example"));
    struct stat status;
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &status), 0);
    QCOMPARE(status.st_mode & 0777, 0600u);
    for (const IssuedKey &key : *issued) {
        QVERIFY(key.apiKey.startsWith("bd_"));
        QCOMPARE(key.apiKey.size(), 3 + 43); // 256 bits in base64url
        QVERIFY2(!written.contains(key.apiKey.toUtf8()), "a plaintext key reached the file");
        QVERIFY(written.contains(ApiKey::hash(key.apiKey).toHex()));
        const User *user = users.authenticate(key.apiKey);
        QVERIFY(user);
        QCOMPARE(user->id, key.userId);
    }
    QCOMPARE(users.find("admin_user")->roles, QStringList{"admin"});
    QCOMPARE(users.find("consumer_user")->roles, QStringList{"consumer"});

    // A second start finds hashes only: nothing to replace, and the same keys still work.
    UserDirectory again(m_policy, m_clock);
    const Result<QList<IssuedKey>> reissued = again.load(path);
    QVERIFY(reissued.ok());
    QVERIFY(reissued->isEmpty());
    QCOMPARE(again.authenticate(issued->first().apiKey)->id, issued->first().userId);
    QCOMPARE(again.find(issued->first().userId)->keyPrefix, issued->first().apiKey.left(7));
    QVERIFY(!again.authenticate("bd_wrong"));
    QVERIFY(!again.authenticate(""));
}

void TestUserDirectory::realPlaintextKeysWork()
{
    QTemporaryDir dir;
    const QByteArray text = "users:\n  ci:\n    roles: [publisher, consumer]\n    api_key: long-enough-real-key\n"
                            "    name: CI robot\n  off:\n    role: admin\n    api_key: other-real-key\n    disabled: true\n";
    const QString path = write(dir, text);
    UserDirectory users(m_policy, m_clock);
    QVERIFY(users.load(path)->isEmpty());
    QCOMPARE(read(path), text); // nothing to replace: the file is left alone
    const User *ci = users.authenticate("long-enough-real-key");
    QVERIFY(ci);
    QCOMPARE(ci->name, "CI robot");
    QCOMPARE(ci->roles, (QStringList{"publisher", "consumer"}));
    QCOMPARE(ci->lastUsedMs, m_clock.nowMs());
    QVERIFY(!users.authenticate("other-real-key")); // disabled
}

void TestUserDirectory::errorsPointAtTheLine_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    QTest::addRow("no-users") << QByteArray("people: {}\n") << ":1:1: expected a 'users' mapping";
    QTest::addRow("unknown-role") << QByteArray("users:\n  a:\n    role: wizard\n    api_key: k-1\n")
                                  << ":3:5: user 'a': Unknown role 'wizard' (known: admin, consumer, publisher)";
    QTest::addRow("no-role") << QByteArray("users:\n  a:\n    api_key: k-1\n") << ":3:5: user 'a': A user needs at least one role";
    QTest::addRow("both-keys") << QByteArray("users:\n  a:\n    role: admin\n    api_key: k\n    api_key_sha256: " + QByteArray(64, 'a') + "\n")
                               << ":3:5: user 'a': give api_key or api_key_sha256, not both";
    QTest::addRow("bad-hash") << QByteArray("users:\n  a:\n    role: admin\n    api_key_sha256: xyz\n")
                              << ":3:5: user 'a': api_key_sha256 must be 64 hex digits";
    QTest::addRow("bad-id") << QByteArray("users:\n  \"no way\":\n    role: admin\n")
                            << ":3:5: invalid user id 'no way' (letters, digits and _ . - @; at most 64)";
    QTest::addRow("roles-not-list") << QByteArray("users:\n  a:\n    roles: {x: 1}\n")
                                    << ":3:12: 'users.a.roles' must be a list of strings";
}

void TestUserDirectory::errorsPointAtTheLine()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QString path = write(dir, text);
    UserDirectory users(m_policy, m_clock);
    const Result<QList<IssuedKey>> loaded = users.load(path);
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().message, path + error);
    QCOMPARE(read(path), text); // a bad file is never rewritten
    QVERIFY(users.users().isEmpty());
}

void TestUserDirectory::missingFileCanBeCreated()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("sub/users.yaml");
    UserDirectory users(m_policy, m_clock);
    QCOMPARE(users.load(path).error().message, path + ": users file not found");
    const Result<QList<IssuedKey>> created = users.load(path, true);
    QVERIFY(created.ok());
    QCOMPARE(created->size(), 1);
    QCOMPARE(created->first().userId, "admin");
    QVERIFY(QFileInfo::exists(path));
    QCOMPARE(users.authenticate(created->first().apiKey)->roles, QStringList{"admin"});
}

void TestUserDirectory::changesPersist()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("users.yaml");
    UserDirectory users(m_policy, m_clock);
    QVERIFY(users.load(path, true).ok());

    const Result<IssuedKey> added = users.addUser("bob", "Bob", {"consumer"});
    QVERIFY(added.ok());
    QCOMPARE(users.addUser("bob", "Bob", {"consumer"}).error().code, ErrorCode::Conflict);
    QCOMPARE(users.addUser("eve", "Eve", {"root"}).error().message,
             "Unknown role 'root' (known: admin, consumer, publisher)");
    QCOMPARE(users.addUser("bad id", "", {"admin"}).error().code, ErrorCode::InvalidArgument);

    const Result<IssuedKey> rotated = users.rotateKey("bob");
    QVERIFY(rotated.ok());
    QVERIFY(rotated->apiKey != added->apiKey);
    QVERIFY(!users.authenticate(added->apiKey));
    QVERIFY(users.setRoles("bob", {"publisher"}).ok());
    QVERIFY(users.setDisabled("bob", true).ok());
    QCOMPARE(users.rotateKey("nobody").error().code, ErrorCode::NotFound);

    UserDirectory reloaded(m_policy, m_clock);
    QVERIFY(reloaded.load(path).ok());
    const User *bob = reloaded.find("bob");
    QVERIFY(bob);
    QCOMPARE(bob->roles, QStringList{"publisher"});
    QVERIFY(bob->disabled);
    QCOMPARE(bob->createdMs, m_clock.nowMs());
    QVERIFY(!reloaded.authenticate(rotated->apiKey)); // disabled
    QVERIFY(reloaded.setDisabled("bob", false).ok());
    QCOMPARE(reloaded.authenticate(rotated->apiKey)->id, "bob");

    QVERIFY(reloaded.removeUser("bob").ok());
    UserDirectory third(m_policy, m_clock);
    QVERIFY(third.load(path).ok());
    QVERIFY(!third.find("bob"));
    QVERIFY(!read(path).contains(rotated->apiKey.toUtf8()));
}

void TestUserDirectory::failedWriteChangesNothing()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("sub/users.yaml");
    UserDirectory users(m_policy, m_clock);
    QVERIFY(users.load(path, true).ok());
    // Where the file's folder was there is now a plain file: no write can succeed, even as root.
    QVERIFY(QDir(dir.filePath("sub")).removeRecursively());
    QFile blocker(dir.filePath("sub"));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();

    const Result<IssuedKey> added = users.addUser("bob", "", {"consumer"});
    QVERIFY(!added.ok());
    QVERIFY2(added.error().message.startsWith(path + ": cannot write"), qPrintable(added.error().message));
    QVERIFY(!users.find("bob"));
}

void TestUserDirectory::keysAreUnique()
{
    QSet<QString> keys;
    for (int i = 0; i < 1000; ++i)
        keys.insert(ApiKey::generate());
    QCOMPARE(keys.size(), 1000);
    QVERIFY(ApiKey::constantTimeEquals("abc", "abc"));
    QVERIFY(!ApiKey::constantTimeEquals("abc", "abd"));
    QVERIFY(!ApiKey::constantTimeEquals("abc", "abcd"));
    QVERIFY(ApiKey::isPlaceholder(""));
    QVERIFY(ApiKey::isPlaceholder("admin-key-example"));
    QVERIFY(!ApiKey::isPlaceholder("bd_x"));
}

QTEST_APPLESS_MAIN(TestUserDirectory)
#include "tst_userdirectory.moc"
