// SPDX-License-Identifier: GPL-3.0-or-later
#include "security/apikey.h"
#include "security/userdirectory.h"

#include "../support/testdata.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Broker;
using Broker::Testing::testData;

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
    void newKeysCanWaitForTheCaller_data();
    void newKeysCanWaitForTheCaller();
    void changesPersist();
    void failedWriteChangesNothing();
    void keysAreUnique();
    void sharedKeysAreRefusedAtLoad_data();
    void sharedKeysAreRefusedAtLoad();
    void lastAdminIsKeptWhoeverAsks_data();
    void lastAdminIsKeptWhoeverAsks();
    void grantAndManageRules_data();
    void grantAndManageRules();
    void plaintextKeysInReadableFilesWarn_data();
    void plaintextKeysInReadableFilesWarn();
    void keyPrefixShowsNothingOfChosenKeys_data();
    void keyPrefixShowsNothingOfChosenKeys();
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
    const QByteArray text = testData(QStringLiteral("userdirectory/plaintext-keys.yaml"));
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

// With SavedLater, load() keeps the hashes of the keys it makes in memory until saveNewKeys()
// (or any change) writes them: a caller whose start fails leaves the file as it was.
void TestUserDirectory::newKeysCanWaitForTheCaller_data()
{
    QTest::addColumn<QByteArray>("file"); // empty: none yet
    QTest::addColumn<bool>("byChange");   // written by a change instead of saveNewKeys()
    QTest::addRow("new-file-saved") << QByteArray() << false;
    QTest::addRow("new-file-written-by-a-change") << QByteArray() << true;
    QTest::addRow("placeholder-saved") << QByteArray("users:\n  ops: {role: admin, api_key: \"\"}\n") << false;
}

void TestUserDirectory::newKeysCanWaitForTheCaller()
{
    QFETCH(QByteArray, file);
    QFETCH(bool, byChange);
    QTemporaryDir dir;
    const QString path = dir.filePath("users.yaml");
    if (!file.isEmpty()) {
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(file);
    }
    UserDirectory users(m_policy, m_clock);
    const Result<QList<IssuedKey>> issued = users.load(path, true, UserDirectory::NewKeys::SavedLater);
    QVERIFY(issued.ok());
    QCOMPARE(issued->size(), 1);
    QVERIFY(users.hasUnsavedKeys());
    QCOMPARE(QFileInfo::exists(path), !file.isEmpty());
    if (!file.isEmpty())
        QCOMPARE(read(path), file);
    QVERIFY(users.authenticate(issued->first().apiKey)); // in force in memory meanwhile

    if (byChange)
        QVERIFY(users.addUser("bob", "", {"consumer"}).ok());
    else
        QVERIFY(users.saveNewKeys().ok());
    QVERIFY(!users.hasUnsavedKeys());
    UserDirectory reread(m_policy, m_clock);
    const Result<QList<IssuedKey>> again = reread.load(path);
    QVERIFY(again.ok());
    QVERIFY(again->isEmpty()); // no placeholder left: nothing new to show
    QCOMPARE(reread.authenticate(issued->first().apiKey)->id, issued->first().userId);
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
    // The path is for the log (detail), not for the message a client may see.
    QCOMPARE(added.error().message, "Cannot write the users file");
    QVERIFY2(added.error().detail.startsWith(path + ": "), qPrintable(added.error().detail));
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

void TestUserDirectory::sharedKeysAreRefusedAtLoad_data()
{
    QTest::addColumn<QByteArray>("text");
    const QByteArray hash = ApiKey::hash("one-key-for-two").toHex();
    QTest::addRow("two-plaintext") << QByteArray("users:\n  zed: {role: admin, api_key: one-key-for-two}\n"
                                                 "  amy: {role: consumer, api_key: one-key-for-two}\n");
    QTest::addRow("two-hashes") << QByteArray("users:\n  zed: {role: admin, api_key_sha256: " + hash + "}\n"
                                              "  amy: {role: consumer, api_key_sha256: " + hash + "}\n");
    QTest::addRow("plaintext-and-its-hash") << QByteArray("users:\n  zed: {role: admin, api_key: one-key-for-two}\n"
                                                          "  amy: {role: consumer, api_key_sha256: " + hash + "}\n");
}

void TestUserDirectory::sharedKeysAreRefusedAtLoad()
{
    QFETCH(QByteArray, text);
    QTemporaryDir dir;
    const QString path = write(dir, text);
    UserDirectory users(m_policy, m_clock);
    const Result<QList<IssuedKey>> loaded = users.load(path);
    QVERIFY(!loaded.ok());
    const QString message = loaded.error().message;
    QVERIFY2(message.contains("'amy' and 'zed' have the same API key"), qPrintable(message));
    QVERIFY2(!message.contains("one-key-for-two") && !message.contains(ApiKey::hash("one-key-for-two").toHex()),
             qPrintable(message));
    QVERIFY(users.users().isEmpty());
    QVERIFY(!users.authenticate("one-key-for-two"));
}

void TestUserDirectory::lastAdminIsKeptWhoeverAsks_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("change"); // remove | disable | demote
    QTest::addColumn<bool>("allowed");

    const QByteArray one = "users:\n  root: {role: admin, api_key: k-root-1}\n  bob: {role: consumer, api_key: k-bob-1}\n";
    const QByteArray two = one + "  ann: {role: admin, api_key: k-ann-1}\n";
    const QByteArray disabledOther = one + "  ann: {role: admin, api_key: k-ann-1, disabled: true}\n";
    const QByteArray superuser = one + "  sue: {role: superuser, api_key: k-sue-1}\n";
    const QByteArray none = "users:\n  root: {role: publisher, api_key: k-root-1}\n  bob: {role: consumer, api_key: k-bob-1}\n";
    for (const QString change : {"remove", "disable", "demote"}) {
        QTest::addRow("only-admin-%s", qPrintable(change)) << one << change << false;
        QTest::addRow("two-admins-%s", qPrintable(change)) << two << change << true;
        QTest::addRow("other-admin-disabled-%s", qPrintable(change)) << disabledOther << change << false;
        QTest::addRow("full-power-custom-role-counts-%s", qPrintable(change)) << superuser << change << true;
        QTest::addRow("no-admin-to-begin-with-%s", qPrintable(change)) << none << change << true;
    }
}

void TestUserDirectory::lastAdminIsKeptWhoeverAsks()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, change);
    QFETCH(bool, allowed);

    AccessPolicy policy;
    QVERIFY(policy.defineRole("superuser", {"*"}).ok());
    QTemporaryDir dir;
    const QString path = write(dir, text);
    UserDirectory users(policy, m_clock);
    QVERIFY(users.load(path).ok());
    const QByteArray before = read(path);
    // The calls the desktop makes: no REST in between.
    const Result<void> result = change == "remove"    ? users.removeUser("root")
                                : change == "disable" ? users.setDisabled("root", true)
                                                      : users.setRoles("root", {"consumer"});
    QCOMPARE(result.ok(), allowed);
    if (allowed)
        return;
    QCOMPARE(result.error().code, ErrorCode::Conflict);
    QCOMPARE(result.error().message, UserDirectory::lastAdminMessage());
    QCOMPARE(read(path), before); // nothing written
    QVERIFY(users.find("root") && !users.find("root")->disabled);
    QCOMPARE(users.changeUser("root", QStringList{"admin"}, true).ok(), false); // both at once: the same rule
    QCOMPARE(users.find("root")->roles, QStringList{"admin"});
}

void TestUserDirectory::grantAndManageRules_data()
{
    QTest::addColumn<QStringList>("actor");
    QTest::addColumn<QStringList>("grant");  // mayGrant
    QTest::addColumn<QString>("target");     // mayManage
    QTest::addColumn<bool>("mayGrant");
    QTest::addColumn<bool>("mayManage");

    const QStringList manager{"user_manager"};
    QTest::addRow("manager-grants-admin") << manager << QStringList{"admin"} << "pub" << false << true;
    QTest::addRow("manager-grants-publisher") << manager << QStringList{"publisher"} << "pub" << true << true;
    QTest::addRow("manager-grants-consumer") << manager << QStringList{"consumer"} << "con" << false << false;
    QTest::addRow("manager-manages-admin") << manager << QStringList{"user_manager"} << "root" << true << false;
    QTest::addRow("admin-does-all") << QStringList{"admin"} << QStringList{"admin", "consumer"} << "root" << true << true;
    QTest::addRow("no-roles-nothing") << QStringList{} << QStringList{"publisher"} << "pub" << false << false;
}

void TestUserDirectory::grantAndManageRules()
{
    QFETCH(QStringList, actor);
    QFETCH(QStringList, grant);
    QFETCH(QString, target);
    QFETCH(bool, mayGrant);
    QFETCH(bool, mayManage);

    AccessPolicy policy;
    QVERIFY(policy.defineRole("user_manager", {"manage_users", "list_queues", "publish:*"}).ok());
    QTemporaryDir dir;
    UserDirectory users(policy, m_clock);
    QVERIFY(users.load(write(dir, testData(QStringLiteral("userdirectory/one-user-per-role.yaml")))).ok());
    const Result<void> granted = users.mayGrant(actor, grant);
    QCOMPARE(granted.ok(), mayGrant);
    if (!granted)
        QCOMPARE(granted.error().code, ErrorCode::PermissionDenied);
    const Result<void> managed = users.mayManage(actor, target);
    QCOMPARE(managed.ok(), mayManage);
    if (!managed)
        QCOMPARE(managed.error().code, ErrorCode::PermissionDenied);
    QCOMPARE(users.mayManage(actor, "nobody").error().code, ErrorCode::NotFound);
}

void TestUserDirectory::plaintextKeysInReadableFilesWarn_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("warns");

    const QByteArray plain = "users:\n  ci: {role: publisher, api_key: plain-text-secret}\n";
    const QByteArray hashed = "users:\n  ci: {role: publisher, api_key_sha256: " + ApiKey::hash("x").toHex() + "}\n";
    QTest::addRow("plaintext-world-readable") << plain << 0644 << true;
    QTest::addRow("plaintext-group-readable") << plain << 0640 << true;
    QTest::addRow("plaintext-owner-only") << plain << 0600 << false;
    QTest::addRow("hashes-world-readable") << hashed << 0644 << false;
    // A placeholder makes the broker write the file back, with hashes only.
    QTest::addRow("rewritten-with-hashes") << QByteArray(plain + "  new: {role: consumer, api_key: \"\"}\n") << 0644
                                           << false;
}

void TestUserDirectory::plaintextKeysInReadableFilesWarn()
{
    QFETCH(QByteArray, text);
    QFETCH(int, mode);
    QFETCH(bool, warns);

    QTemporaryDir dir;
    const QString path = write(dir, text);
    QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode_t(mode)), 0);
    UserDirectory users(m_policy, m_clock);
    QVERIFY(users.load(path).ok());
    QCOMPARE(users.loadWarnings().size(), warns ? 1 : 0);
    if (text.contains("new:")) { // written back: hashes only, owner only
        QVERIFY(!read(path).contains("plain-text-secret"));
        QCOMPARE(QFileInfo(path).permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
    }
    if (!warns)
        return;
    const QString warning = users.loadWarnings().first();
    for (const char *part : {"ci", "chmod 600", "api_key_sha256"})
        QVERIFY2(warning.contains(part), qPrintable(warning));
    QVERIFY2(!warning.contains("plain-text-secret"), qPrintable(warning));
}

void TestUserDirectory::keyPrefixShowsNothingOfChosenKeys_data()
{
    QTest::addColumn<QByteArray>("entry");
    QTest::addColumn<QString>("prefix");

    QTest::addRow("chosen-plaintext") << QByteArray("api_key: operator-chosen-key") << QString();
    QTest::addRow("stored-old-prefix-of-chosen") << QByteArray("api_key_sha256: " + ApiKey::hash("x").toHex() + ", key_prefix: operato")
                                                 << QString();
    QTest::addRow("stored-generated-prefix") << QByteArray("api_key_sha256: " + ApiKey::hash("x").toHex() + ", key_prefix: bd_AbCd")
                                             << "bd_AbCd";
}

void TestUserDirectory::keyPrefixShowsNothingOfChosenKeys()
{
    QFETCH(QByteArray, entry);
    QFETCH(QString, prefix);

    QTemporaryDir dir;
    UserDirectory users(m_policy, m_clock);
    QVERIFY(users.load(write(dir, "users:\n  a: {role: admin, " + entry + "}\n")).ok());
    QCOMPARE(users.find("a")->keyPrefix, prefix);
    const Result<IssuedKey> rotated = users.rotateKey("a");
    QVERIFY(rotated.ok());
    QCOMPARE(users.find("a")->keyPrefix, rotated->apiKey.left(7)); // a generated key keeps a short prefix
    QVERIFY(users.find("a")->keyPrefix.startsWith("bd_"));
}

QTEST_APPLESS_MAIN(TestUserDirectory)
#include "tst_userdirectory.moc"
