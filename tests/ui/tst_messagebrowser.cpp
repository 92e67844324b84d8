// SPDX-License-Identifier: GPL-3.0-or-later
// The message browser's actions on chosen messages, offscreen, as a user does them: select rows
// with the mouse, press the button, answer the confirmation, then check the broker's side. The
// browser sits in a queue detail page fed by the embedded broker's snapshots. The whole class
// runs twice: on the memory store, then on a Redis store (skipped without redis-server).
#include "../support/redisserver.h"
#include "runtime/brokerclient.h"
#include "ui/messagebar.h"
#include "ui/messagebrowser.h"
#include "ui/messagelistmodel.h"
#include "ui/queuedetailpage.h"
#include "ui/redrivedialog.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

class TestMessageBrowser : public QObject
{
    Q_OBJECT

public:
    explicit TestMessageBrowser(QString backend) : m_backend(std::move(backend)) {}

private:
    QString m_backend; // "memory" or "redis"
    std::unique_ptr<Testing::RedisServer> m_redis;
    QTemporaryDir m_dir;
    std::unique_ptr<BrokerClient> m_client;
    std::unique_ptr<QueueDetailPage> m_page;
    QNetworkAccessManager m_network;
    QString m_adminKey;

    // The future's result, waiting for it with the event loop running (bounded).
    template<typename T>
    static T await(QFuture<T> future)
    {
        QElapsedTimer waited;
        waited.start();
        while (!future.isFinished() && waited.elapsed() < 10000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        return future.result();
    }

    MessageBrowser *browser() const { return m_page->messageBrowser(); }

    QList<Message> messagesIn(const QString &queue, MessageState state = MessageState::Ready)
    {
        BrowseQuery query;
        query.state = state;
        query.limit = 100;
        const Result<BrowsePage> page = await(m_client->browse(queue, query));
        return page ? page->messages : QList<Message>{};
    }

    QStringList idsIn(const QString &queue, MessageState state = MessageState::Ready)
    {
        QStringList ids;
        for (const Message &message : messagesIn(queue, state))
            ids.append(message.id);
        return ids;
    }

    QStringList publish(const QString &queue, const QList<QByteArray> &payloads)
    {
        QStringList ids;
        for (const QByteArray &payload : payloads) {
            NewMessage message;
            message.data = payload;
            const Result<PublishResult> published = await(m_client->publish(queue, {message}));
            if (published)
                ids.append(published->messageIds().value(0));
        }
        return ids;
    }

    // Opens `queue` on its Messages tab in `state` (or reloads it there), then lets a snapshot
    // tell the page about the queue: its dead-letter queue and the others, for the actions.
    void open(const QString &queue, MessageState state = MessageState::Ready)
    {
        QSignalSpy shown(browser(), &MessageBrowser::pageShown);
        if (m_page->queue() != queue) {
            m_page->showQueue(queue, QueueDetailPage::MessagesTab);
            QVERIFY(shown.wait(5000));
        }
        QComboBox *states = browser()->stateBox();
        if (states->currentData().toInt() != int(state))
            states->setCurrentIndex(states->findData(int(state)));
        else
            browser()->refresh();
        QVERIFY(shown.wait(5000));
        QSignalSpy snapshot(m_client.get(), &BrokerClient::snapshotUpdated);
        QVERIFY(snapshot.wait(5000));
    }

    // Clicks the rows of `ids`, the first plainly, the others with Ctrl held.
    void selectRows(const QStringList &ids)
    {
        QTableView *view = browser()->view();
        for (qsizetype i = 0; i < ids.size(); ++i) {
            const int row = browser()->model()->rowOf(ids.at(i));
            QVERIFY2(row >= 0, qPrintable(ids.at(i)));
            const QRect cell = view->visualRect(browser()->model()->index(row, 0));
            QTest::mouseClick(view->viewport(), Qt::LeftButton, i == 0 ? Qt::NoModifier : Qt::ControlModifier,
                              cell.center());
        }
        QCOMPARE(browser()->selectedIds().size(), ids.size());
    }

    QPushButton *button(const char *name) const { return browser()->findChild<QPushButton *>(name); }

    // Answers the open confirmation with its action button, after checking what it says.
    void confirm(const QString &action, const QString &mentions)
    {
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = browser()->window()->findChild<QMessageBox *>()) != nullptr);
        QVERIFY2(box->text().contains(mentions), qPrintable(box->text()));
        QAbstractButton *yes = nullptr;
        for (QAbstractButton *candidate : box->buttons()) {
            if (candidate->text() == action)
                yes = candidate;
        }
        QVERIFY(yes);
        yes->click();
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void actionsDisabledWhereTheyCannotApply();
    void deleteTwoSelected();
    void moveTwoToAnotherQueue();
    void requeueAnInFlightMessage();
    void deadLetterThenRedriveWithAnEdit();
    void invalidJsonBlocksPreviewAndRedrive();
};

void TestMessageBrowser::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    qputenv("XDG_CONFIG_HOME", m_dir.filePath("xdg").toLocal8Bit());
    QFile config(m_dir.filePath("message_broker.yaml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("api: {bind: 127.0.0.1, port: 0}\n");
    if (m_backend == u"redis") {
        m_redis = std::make_unique<Testing::RedisServer>();
        if (!m_redis->start())
            QSKIP(qPrintable("no Redis server: " + m_redis->errorString()));
        config.write(QStringLiteral("storage: {backend: redis, redis: {host: 127.0.0.1, port: %1}}\n")
                         .arg(m_redis->port())
                         .toUtf8());
    }
    config.close();
    HostSettings settings;
    settings.configFile = m_dir.filePath("message_broker.yaml");
    settings.createUsersFile = true;
    m_client = std::make_unique<BrokerClient>(50);
    const StartReport start = await(m_client->start(settings));
    QVERIFY2(start.ok, qPrintable(start.error));
    m_adminKey = start.issuedKeys.value(0).apiKey;
    m_page = std::make_unique<QueueDetailPage>(*m_client);
    m_page->showStart(start);
    connect(m_client.get(), &BrokerClient::snapshotUpdated, m_page.get(), &QueueDetailPage::showSnapshot);
    m_page->resize(1000, 700);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));

    QueueConfig plain = QueueConfig::withDefaults(start.queueDefaults);
    for (const char *name : {"a", "b", "lease", "work.dlq"})
        QVERIFY(await(m_client->createQueue(name, plain)));
    QueueConfig withDlq = plain;
    withDlq.deadLetterQueue = "work.dlq";
    QVERIFY(await(m_client->createQueue("work", withDlq)));
}

void TestMessageBrowser::cleanupTestCase()
{
    m_page.reset();
    m_client.reset();
    m_redis.reset();
}

void TestMessageBrowser::actionsDisabledWhereTheyCannotApply()
{
    const QStringList ids = publish("a", {R"({"n":0})"});
    open("a");
    // Nothing selected: nothing to act on.
    QVERIFY(!button("deleteMessages")->isEnabled());
    selectRows({ids.first()});
    QVERIFY(button("deleteMessages")->isEnabled());
    QVERIFY(button("moveMessages")->isEnabled());
    // Ready messages are ready already; "a" has no dead-letter queue; none is dead-lettered.
    QVERIFY(!button("requeueMessages")->isEnabled());
    QVERIFY(button("requeueMessages")->toolTip().contains("delayed or in-flight"));
    QVERIFY(!button("deadLetterMessages")->isEnabled());
    QVERIFY(button("deadLetterMessages")->toolTip().contains("no dead-letter queue"));
    QVERIFY(!button("redriveMessages")->isEnabled());
    // The table's context menu offers the same actions, enabled and explained alike.
    for (const char *name : {"deleteMessages", "requeueMessages", "moveMessages", "deadLetterMessages", "redriveMessages"}) {
        const QPushButton *twin = button(name);
        QAction *action = nullptr;
        for (QAction *candidate : browser()->view()->actions()) {
            if (candidate->text() == twin->text())
                action = candidate;
        }
        QVERIFY2(action, name);
        QCOMPARE(action->isEnabled(), twin->isEnabled());
        QCOMPARE(action->toolTip(), twin->toolTip());
        QVERIFY(!twin->toolTip().isEmpty());
    }
    QVERIFY(await(m_client->purgeQueue("a")));
}

void TestMessageBrowser::deleteTwoSelected()
{
    const QStringList ids = publish("a", {R"({"n":1})", R"({"n":2})", R"({"n":3})", R"({"n":4})"});
    QCOMPARE(ids.size(), 4);
    open("a");
    selectRows({ids.at(0), ids.at(2)});
    QSignalSpy shown(browser(), &MessageBrowser::pageShown);
    button("deleteMessages")->click();
    QCOMPARE(idsIn("a"), ids); // nothing goes before the answer
    confirm("Delete", "cannot be undone");
    QVERIFY(shown.wait(5000)); // the list reloads
    QCOMPARE(idsIn("a"), (QStringList{ids.at(1), ids.at(3)}));
    QCOMPARE(browser()->model()->rowCount(), 2);
    QCOMPARE(browser()->messageBar()->kind(), MessageBar::Kind::Info);
    QVERIFY2(browser()->messageBar()->text().contains("Deleted 2"), qPrintable(browser()->messageBar()->text()));
    QVERIFY(await(m_client->purgeQueue("a")));
}

void TestMessageBrowser::moveTwoToAnotherQueue()
{
    const QStringList ids = publish("a", {R"({"m":1})", R"({"m":2})", R"({"m":3})"});
    open("a");
    selectRows({ids.at(1), ids.at(2)});
    QSignalSpy shown(browser(), &MessageBrowser::pageShown);
    button("moveMessages")->click();
    QDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = browser()->findChild<QDialog *>("moveDialog")) != nullptr);
    auto *target = dialog->findChild<QComboBox *>("moveTarget");
    QVERIFY(target->findText("a") < 0); // not where they are already
    target->setCurrentIndex(target->findText("b"));
    QVERIFY(target->currentIndex() >= 0);
    QTest::keyClick(target, Qt::Key_Return); // Enter presses Move
    QVERIFY(shown.wait(5000));
    QCOMPARE(idsIn("a"), QStringList{ids.at(0)});
    // As a set: the stores do not agree on the order moved messages arrive in (Redis reverses it).
    QCOMPARE(idsIn("b"), (QStringList{ids.at(1), ids.at(2)})); // in the order they stood, on both stores
    QVERIFY(browser()->messageBar()->text().contains("Moved 2"));
    QVERIFY(await(m_client->purgeQueue("a")));
}

void TestMessageBrowser::requeueAnInFlightMessage()
{
    const QStringList ids = publish("lease", {R"({"job":1})"});
    // A consumer leases it (acknowledge=false) and holds on to it.
    QNetworkRequest request(QUrl(m_client->lastStart().apiUrl + "/messages/lease?acknowledge=false&visibility_timeout=300"));
    request.setRawHeader("X-API-Key", m_adminKey.toUtf8());
    QNetworkReply *reply = m_network.get(request);
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    reply->deleteLater();
    QCOMPARE(idsIn("lease", MessageState::InFlight), ids);

    open("lease", MessageState::InFlight);
    selectRows(ids);
    QVERIFY(button("requeueMessages")->isEnabled());
    QSignalSpy shown(browser(), &MessageBrowser::pageShown);
    button("requeueMessages")->click();
    QVERIFY(shown.wait(5000));
    QCOMPARE(idsIn("lease", MessageState::InFlight), QStringList{});
    QCOMPARE(idsIn("lease"), ids);
    QCOMPARE(browser()->model()->rowCount(), 0); // the in-flight list is empty now
}

void TestMessageBrowser::deadLetterThenRedriveWithAnEdit()
{
    // Keys out of alphabetical order: the edit must keep them as written.
    const QStringList ids = publish("work", {R"({"order":7,"amount":"12,50"})", R"({"order":8,"amount":"3.00"})"});
    open("work");
    selectRows(ids);
    QVERIFY(button("deadLetterMessages")->isEnabled());
    QSignalSpy shown(browser(), &MessageBrowser::pageShown);
    button("deadLetterMessages")->click();
    confirm("Dead-letter", "work.dlq");
    QVERIFY(shown.wait(5000));
    QCOMPARE(idsIn("work"), QStringList{});
    QCOMPARE(idsIn("work.dlq"), ids);
    QCOMPARE(messagesIn("work.dlq").first().originQueue, "work");
    // The browser fits the window at its smallest useful width (800 px, less the sidebar).
    QVERIFY2(browser()->minimumSizeHint().width() <= 640, qPrintable(QString::number(browser()->minimumSizeHint().width())));

    // The Dead-lettered state of "work" shows them; redrive both, the first with a fixed amount.
    QComboBox *states = browser()->stateBox();
    states->setCurrentIndex(states->findData(int(MessageState::Dead)));
    QVERIFY(shown.wait(5000));
    QCOMPARE(browser()->model()->rowCount(), 2);
    QVERIFY(button("redriveMessages")->isEnabled());
    selectRows(ids);
    button("redriveMessages")->click();
    RedriveDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = browser()->findChild<RedriveDialog *>()) != nullptr);
    QCOMPARE(dialog->messageList()->count(), 2);
    int first = -1; // the row of the first message published, wherever the store put it
    for (int row = 0; row < dialog->messageList()->count(); ++row) {
        QVERIFY(dialog->messageList()->item(row)->text().endsWith("→ work"));
        if (dialog->messageList()->item(row)->text().startsWith(ids.at(0)))
            first = row;
    }
    QVERIFY(first >= 0);
    QTest::mouseClick(dialog->messageList()->viewport(), Qt::LeftButton, {},
                      dialog->messageList()->visualItemRect(dialog->messageList()->item(first)).center());
    QCOMPARE(dialog->messageList()->currentRow(), first);
    QCOMPARE(dialog->editor()->toPlainText(), "{\n    \"order\": 7,\n    \"amount\": \"12,50\"\n}");
    QTextCursor cursor = dialog->editor()->document()->find("\"12,50\"");
    QVERIFY(!cursor.isNull());
    dialog->editor()->setTextCursor(cursor);
    QTest::keyClicks(dialog->editor(), "\"12.50\"");
    QCOMPARE(dialog->edits().value(ids.at(0)), QByteArray(R"({"order":7,"amount":"12.50"})"));
    QVERIFY(!dialog->edits().contains(ids.at(1)));

    // Preview: the diff, and nothing moves.
    QSignalSpy previewed(dialog, &RedriveDialog::previewShown);
    QTest::mouseClick(dialog->previewButton(), Qt::LeftButton);
    QVERIFY(previewed.wait(5000));
    const QString diff = dialog->previewText();
    QVERIFY2(diff.contains("-     \"amount\": \"12,50\"\n+     \"amount\": \"12.50\""), qPrintable(diff));
    QVERIFY2(diff.contains(ids.at(0) + " → work (edited)"), qPrintable(diff));
    QVERIFY2(diff.contains(ids.at(1) + " → work (unchanged)"), qPrintable(diff));
    QCOMPARE(idsIn("work.dlq"), ids);
    QCOMPARE(idsIn("work"), QStringList{});

    // Redrive: confirmed with where they go, then they are back in "work", the edit byte for byte.
    QSignalSpy redriven(dialog, &RedriveDialog::redriven);
    QTest::mouseClick(dialog->redriveButton(), Qt::LeftButton);
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = dialog->findChild<QMessageBox *>()) != nullptr);
    QVERIFY2(box->text().contains("2 to work"), qPrintable(box->text()));
    for (QAbstractButton *candidate : box->buttons()) {
        if (candidate->text() == "Redrive")
            candidate->click();
    }
    QVERIFY(redriven.wait(5000));
    QCOMPARE(redriven.first().at(0).toLongLong(), 2);
    QCOMPARE(idsIn("work.dlq"), QStringList{});
    const QList<Message> back = messagesIn("work");
    QCOMPARE(back.size(), 2);
    QMap<QString, QByteArray> bodies;
    for (const Message &message : back)
        bodies.insert(message.id, message.data);
    QCOMPARE(bodies.value(ids.at(0)), QByteArray(R"({"order":7,"amount":"12.50"})"));
    QCOMPARE(bodies.value(ids.at(1)), QByteArray(R"({"order":8,"amount":"3.00"})"));
    QTRY_VERIFY(browser()->messageBar()->text().contains("Redrove 2"));
}

void TestMessageBrowser::invalidJsonBlocksPreviewAndRedrive()
{
    MessageAction deadLetter;
    deadLetter.kind = MessageAction::Kind::DeadLetter;
    deadLetter.ids = publish("work", {R"({"x":1})"});
    QVERIFY(await(m_client->messageAction("work", deadLetter)));
    const QList<Message> messages = messagesIn("work.dlq");
    QCOMPARE(messages.size(), 1);
    RedriveDialog dialog(*m_client, "work.dlq", messages);
    dialog.show();
    QVERIFY(dialog.previewButton()->isEnabled());
    dialog.editor()->moveCursor(QTextCursor::End);
    QTest::keyClicks(dialog.editor(), ",");
    QVERIFY(!dialog.previewButton()->isEnabled());
    QVERIFY(!dialog.redriveButton()->isEnabled());
    QVERIFY2(dialog.problemText().startsWith("Not valid JSON"), qPrintable(dialog.problemText()));
    auto *summary = dialog.findChild<QLabel *>("redriveSummary");
    QVERIFY(summary->text().contains("not valid JSON"));
    QTest::keyClick(dialog.editor(), Qt::Key_Backspace);
    QVERIFY(dialog.previewButton()->isEnabled());
    QCOMPARE(dialog.problemText(), QString());
    QVERIFY2(summary->text().contains("1 to work"), qPrintable(summary->text()));
    QVERIFY(dialog.edits().isEmpty()); // back as it was: no edit is sent

    // A preview goes stale with the next edit, and goes.
    QSignalSpy previewed(&dialog, &RedriveDialog::previewShown);
    dialog.preview();
    QVERIFY(previewed.wait(5000));
    QVERIFY(dialog.previewText().contains("(unchanged)"));
    QTest::keyClicks(dialog.editor(), " ");
    QCOMPARE(dialog.previewText(), QString());
    QVERIFY(await(m_client->purgeQueue("work.dlq")));
}

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    int failures = 0;
    for (const char *backend : {"memory", "redis"}) {
        TestMessageBrowser test(QString::fromLatin1(backend));
        failures += QTest::qExec(&test, argc, argv);
    }
    return failures;
}
#include "tst_messagebrowser.moc"
