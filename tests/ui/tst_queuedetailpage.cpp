// SPDX-License-Identifier: GPL-3.0-or-later
// The queue detail page and its message browser, offscreen, acting as a user would: open a queue
// from the table, read its totals, look at payloads, export and import messages; a REST client
// on loopback checks the broker's side.
#include "ui/forecast.h"
#include "ui/keydialog.h"
#include "ui/mainwindow.h"
#include "ui/messagebrowser.h"
#include "ui/messagelistmodel.h"
#include "ui/messagetransfer.h"
#include "ui/queuedetailpage.h"
#include "ui/queueoptionsform.h"
#include "ui/queuespage.h"
#include "ui/queuetablemodel.h"

#include "../support/desktoptestsettings.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QLineEdit>
#include <QPushButton>
#include <QMouseEvent>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

class TestQueueDetailPage : public QObject
{
    Q_OBJECT

private:
    struct Reply
    {
        int status = 0;
        QJsonObject json;
        QByteArray body;
    };

    QTemporaryDir m_dir;
    std::unique_ptr<BrokerClient> m_client;
    std::unique_ptr<MainWindow> m_window;
    QNetworkAccessManager m_network;
    QString m_adminKey;

    Reply call(const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        QNetworkRequest request(QUrl(m_client->lastStart().apiUrl + path));
        request.setRawHeader("X-API-Key", m_adminKey.toUtf8());
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
        Reply result;
        [&] { QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000); }();
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        result.json = QJsonDocument::fromJson(result.body).object();
        reply->deleteLater();
        return result;
    }

    // Double-clicks the queue's row in the table: the detail page opens on it.
    void openFromTable(const QString &queue)
    {
        m_window->showPage(MainWindow::Queues);
        QueuesPage *page = m_window->queuesPage();
        QTRY_VERIFY(page->model()->rowOf(queue) >= 0);
        page->selectQueue(queue);
        QTableView *view = page->view();
        const QRect cell = view->visualRect(view->currentIndex());
        QVERIFY(cell.isValid());
        // A click, then the double-click event itself: QTest::mouseDClick's synthesized press
        // pair is not taken as a double-click by the offscreen platform in Qt 6.4.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
        QMouseEvent doubleClick(QEvent::MouseButtonDblClick, cell.center(), view->viewport()->mapToGlobal(cell.center()),
                                Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view->viewport(), &doubleClick);
        QTRY_COMPARE(m_window->queueDetailPage()->queue(), queue);
    }

    MessageBrowser *browser() const { return m_window->queueDetailPage()->messageBrowser(); }

    // Shows the Messages tab and waits for its page.
    void showMessages()
    {
        QSignalSpy shown(browser(), &MessageBrowser::pageShown);
        m_window->queueDetailPage()->tabs()->setCurrentIndex(QueueDetailPage::MessagesTab);
        browser()->refresh();
        QVERIFY(shown.wait(5000));
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void enterAndDoubleClickOpenTheQueue();
    void totalsFollowTheBroker();
    void ttlEditedAndEnterChangesTheQueue();
    void refusedChangeKeepsTheForm();
    void partitionsGrowFromTheForm();
    void searchRunsOnTheServer_data();
    void searchRunsOnTheServer();
    void payloadIsShownAsSent();
    void exportThenImportReplaysTheMessages();
    void backReturnsToTheTable();
};

void TestQueueDetailPage::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    qputenv("XDG_CONFIG_HOME", m_dir.filePath("xdg").toLocal8Bit());
    HostSettings settings = Test::desktopTestSettings(m_dir);
    QVERIFY(!settings.configFile.isEmpty());
    m_client = std::make_unique<BrokerClient>(100);
    m_window = std::make_unique<MainWindow>(*m_client, settings);
    m_window->resize(1100, 720);
    m_window->show();
    m_window->startBroker();
    QTRY_COMPARE_WITH_TIMEOUT(m_client->state(), BrokerClient::State::Running, 10000);
    m_adminKey = m_client->lastStart().issuedKeys.value(0).apiKey;
    QVERIFY(!m_adminKey.isEmpty());
    // The first-run key dialog is window-modal: seen, it goes, and the window takes clicks again.
    KeyDialog *keys = nullptr;
    QTRY_VERIFY((keys = m_window->findChild<KeyDialog *>()) != nullptr);
    keys->accept();
    QTRY_VERIFY(m_window->findChild<KeyDialog *>() == nullptr);
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QCOMPARE(call("POST", "/queues", R"({"name":"orders","options":{"max_size":500,"ttl":3600}})").status, 200);
    QCOMPARE(call("POST", "/queues", R"({"name":"replay"})").status, 200);
}

void TestQueueDetailPage::cleanupTestCase()
{
    m_window.reset();
    m_client.reset();
}

void TestQueueDetailPage::enterAndDoubleClickOpenTheQueue()
{
    openFromTable("orders");
    auto *stack = m_window->findChild<QStackedWidget *>();
    QCOMPARE(stack->currentWidget(), m_window->queueDetailPage());

    // Enter on a row does the same.
    m_window->showPage(MainWindow::Queues);
    QTRY_VERIFY(m_window->queuesPage()->model()->rowOf("replay") >= 0);
    m_window->queuesPage()->selectQueue("replay");
    m_window->queuesPage()->view()->setFocus();
    QTest::keyClick(m_window->queuesPage()->view(), Qt::Key_Return);
    QTRY_COMPARE(m_window->queueDetailPage()->queue(), "replay");
    QCOMPARE(stack->currentWidget(), m_window->queueDetailPage());
}

void TestQueueDetailPage::totalsFollowTheBroker()
{
    openFromTable("orders");
    QueueDetailPage *detail = m_window->queueDetailPage();
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call("POST", "/messages/orders", R"({"message":{"n":1}})").status, 200);
    QCOMPARE(call("GET", "/messages/orders").status, 200); // one consumed and acked
    QTRY_COMPARE(detail->shownValue("published"), "3");
    QTRY_COMPARE(detail->shownValue("consumed"), "1");
    QCOMPARE(detail->shownValue("acked"), "1");
    QCOMPARE(detail->shownValue("ready"), "2");
    QCOMPARE(detail->shownValue("size"), "2 / 500");
    // The form shows the options; TTL is editable, and the charts sample every snapshot.
    QCOMPARE(detail->optionsForm()->ttlField()->value(), 3600);
    QTRY_VERIFY(detail->chartSamples() >= 2);
}

void TestQueueDetailPage::ttlEditedAndEnterChangesTheQueue()
{
    openFromTable("orders");
    QueueOptionsForm *form = m_window->queueDetailPage()->optionsForm();
    QSpinBox *ttl = form->ttlField();
    ttl->setFocus();
    ttl->selectAll();
    QTest::keyClicks(ttl, "120");
    QCOMPARE(ttl->value(), 120);
    QTest::keyClick(ttl, Qt::Key_Return);
    QTRY_COMPARE(call("GET", "/queues/orders").json.value("config").toObject().value("ttl").toInt(), 120);
    QTRY_VERIFY(!form->isEdited()); // the form now shows the queue as it is
    QCOMPARE(form->errorText(), QString());
}

void TestQueueDetailPage::refusedChangeKeepsTheForm()
{
    openFromTable("orders");
    QueueOptionsForm *form = m_window->queueDetailPage()->optionsForm();
    auto *deadLetterQueue = form->findChild<QLineEdit *>("deadLetterQueue");
    deadLetterQueue->setFocus();
    deadLetterQueue->clear();
    QTest::keyClicks(deadLetterQueue, "orders");
    QTest::keyClick(deadLetterQueue, Qt::Key_Return);
    QTRY_VERIFY(form->errorText().contains("own dead-letter queue"));
    QCOMPARE(deadLetterQueue->text(), "orders"); // kept as typed, across snapshots too
    QTest::qWait(300);
    QCOMPARE(deadLetterQueue->text(), "orders");
    QCOMPARE(call("GET", "/queues/orders").json.value("config").toObject().value("dead_letter_queue"), QJsonValue());
    auto *revert = form->findChild<QPushButton *>("revert");
    QVERIFY(revert && revert->isEnabled());
    revert->click();
    QCOMPARE(deadLetterQueue->text(), QString());
    QVERIFY(!form->isEdited());
}

void TestQueueDetailPage::partitionsGrowFromTheForm()
{
    QCOMPARE(call("POST", "/queues", R"({"name":"grows"})").status, 200);
    openFromTable("grows");
    QueueOptionsForm *form = m_window->queueDetailPage()->optionsForm();
    auto *partitions = form->findChild<QSpinBox *>("partitions");
    QVERIFY(partitions);
    QCOMPARE(partitions->value(), 1);
    partitions->setFocus();
    partitions->selectAll();
    QTest::keyClicks(partitions, "3");
    QTest::keyClick(partitions, Qt::Key_Return);
    QTRY_COMPARE(call("GET", "/queues/grows").json.value("partitions").toArray().size(), 3);
    QTRY_VERIFY(!form->isEdited());
    QCOMPARE(partitions->minimum(), 3); // partitions only grow: the field cannot go below the count
    auto *shown = m_window->queueDetailPage()->findChild<QLabel *>("partitions");
    QVERIFY(shown);
    QTRY_VERIFY2(shown->text().startsWith("3 · ready"), qPrintable(shown->text()));
}

void TestQueueDetailPage::searchRunsOnTheServer_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("term");
    QTest::addColumn<QStringList>("found"); // the "n" of the payloads found, in order
    QTest::addRow("payload-text") << int(MessageBrowser::SearchKind::Text) << "\"blue\"" << QStringList{"1", "3"};
    QTest::addRow("header-key-value") << int(MessageBrowser::SearchKind::Header) << "tenant=acme" << QStringList{"2", "3"};
    QTest::addRow("header-key-only") << int(MessageBrowser::SearchKind::Header) << "tenant" << QStringList{"2", "3", "4"};
    QTest::addRow("nothing-matches") << int(MessageBrowser::SearchKind::Text) << "violet" << QStringList{};
}

void TestQueueDetailPage::searchRunsOnTheServer()
{
    QFETCH(int, kind);
    QFETCH(QString, term);
    QFETCH(QStringList, found);
    if (call("GET", "/queues/search.me").status == 404) {
        QCOMPARE(call("POST", "/queues", R"({"name":"search.me"})").status, 200);
        for (const QByteArray &body : {QByteArray(R"({"message":{"n":1,"colour":"blue"}})"),
                                       QByteArray(R"({"message":{"n":2,"colour":"red"},"headers":{"tenant":"acme"}})"),
                                       QByteArray(R"({"message":{"n":3,"colour":"blue"},"headers":{"tenant":"acme"}})"),
                                       QByteArray(R"({"message":{"n":4,"colour":"green"},"headers":{"tenant":"other"}})")})
            QCOMPARE(call("POST", "/messages/search.me", body).status, 200);
    }
    openFromTable("search.me");
    showMessages();
    MessageBrowser *messages = browser();
    messages->searchKindBox()->setCurrentIndex(messages->searchKindBox()->findData(kind));
    QSignalSpy shown(messages, &MessageBrowser::pageShown);
    messages->searchField()->setFocus();
    messages->searchField()->clear();
    QTest::keyClicks(messages->searchField(), term);
    QTest::keyClick(messages->searchField(), Qt::Key_Return);
    QVERIFY(shown.wait(5000));
    QStringList shownNumbers;
    for (const Message &message : messages->model()->messages())
        shownNumbers.append(QString::number(QJsonDocument::fromJson("[" + message.data + "]").array().first()["n"].toInt()));
    QCOMPARE(shownNumbers, found);
}

void TestQueueDetailPage::payloadIsShownAsSent()
{
    // Keys deliberately out of alphabetical order, nested too.
    const QByteArray body = R"({"message":{"zeta":1,"alpha":{"y":true,"b":[3,2]}},"headers":{"trace":"t-1"}})";
    QCOMPARE(call("POST", "/queues", R"({"name":"as.sent"})").status, 200);
    QCOMPARE(call("POST", "/messages/as.sent", body).status, 200);
    openFromTable("as.sent");
    showMessages();
    QTRY_COMPARE(browser()->model()->rowCount(), 1);
    QVERIFY2(browser()->shownPayload().startsWith(
                 "{\n    \"zeta\": 1,\n    \"alpha\": {\n        \"y\": true,\n        \"b\": [\n            3,\n            2\n        ]\n    }\n}"),
             qPrintable(browser()->shownPayload()));
    QVERIFY(browser()->shownPayload().contains(R"(headers: {"trace":"t-1"})"));
}

void TestQueueDetailPage::exportThenImportReplaysTheMessages()
{
    QCOMPARE(call("POST", "/queues", R"({"name":"export.src"})").status, 200);
    for (int i = 0; i < 230; ++i) // more than one export page and several import chunks
        QCOMPARE(call("POST", "/messages/export.src", QStringLiteral(R"({"message":{"z":%1,"a":"x"},"priority":0})").arg(i).toUtf8()).status, 200);
    openFromTable("export.src");
    showMessages();
    const QString file = m_dir.filePath("export.jsonl");
    {
        MessageTransfer *transfer = browser()->exportToFile(file);
        QSignalSpy finished(transfer, &MessageTransfer::finished);
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().at(0).toLongLong(), 230);
        QCOMPARE(finished.first().at(2).toString(), QString());
    }
    QFile exported(file);
    QVERIFY(exported.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = exported.readAll().split('\n');
    QCOMPARE(lines.size(), 231); // the last line ends in '\n'
    QVERIFY2(lines.first().contains(R"("data":{"z":0,"a":"x"})"), lines.first().constData());
    QVERIFY(lines.first().startsWith(R"({"id":")"));
    exported.close();

    // Replay into another queue: every message, in order, payloads as they were.
    openFromTable("replay");
    showMessages();
    {
        MessageTransfer *transfer = browser()->importFromFile(file);
        QSignalSpy finished(transfer, &MessageTransfer::finished);
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().at(0).toLongLong(), 230);
        QCOMPARE(finished.first().at(2).toString(), QString());
    }
    const Reply page = call("GET", "/queues/replay/messages?offset=0&limit=2");
    QCOMPARE(page.status, 200);
    QCOMPARE(page.json.value("total").toInt(), 230);
    QVERIFY2(page.body.contains(R"("data":{"z":0,"a":"x"})"), page.body.constData());
    QVERIFY(page.body.indexOf("{\"z\":0,") < page.body.indexOf("{\"z\":1,"));

    // A queue that fills up: a chunk goes in whole or not at all, and the page says how far it got.
    QCOMPARE(call("POST", "/queues", R"({"name":"replay.small","options":{"max_size":150}})").status, 200);
    openFromTable("replay.small");
    showMessages();
    {
        MessageTransfer *transfer = browser()->importFromFile(file);
        QSignalSpy finished(transfer, &MessageTransfer::finished);
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().at(0).toLongLong(), 100);
        const QString error = finished.first().at(2).toString();
        QVERIFY2(error.startsWith("The broker refused the messages up to line 200 (100 were imported before them): "),
                 qPrintable(error));
    }
    QCOMPARE(call("GET", "/queues/replay.small").json.value("message_count").toInt(), 100);
}

void TestQueueDetailPage::backReturnsToTheTable()
{
    openFromTable("orders");
    QTest::keyClick(m_window->queueDetailPage(), Qt::Key_Escape);
    QTRY_VERIFY(m_window->queuesPage()->isVisible());
    QVERIFY(!m_window->queueDetailPage()->isVisible());
    QCOMPARE(m_window->currentPage(), MainWindow::Queues);
}

QTEST_MAIN(TestQueueDetailPage)
#include "tst_queuedetailpage.moc"
