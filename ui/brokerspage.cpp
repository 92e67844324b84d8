// SPDX-License-Identifier: GPL-3.0-or-later
#include "brokerspage.h"

#include "rowtable.h"
#include "confirm.h"
#include "connectiondialog.h"
#include "format.h"
#include "keyring.h"
#include "messagebar.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace Broker::Ui {


BrokersPage::BrokersPage(ConnectionProfiles profiles, Keyring *keyring, QWidget *parent)
    : QWidget(parent), m_profiles(std::move(profiles)), m_keyring(keyring)
{
    auto *layout = new QVBoxLayout(this);
    m_bar = new MessageBar;
    layout->addWidget(m_bar);
    auto *toolbar = new QHBoxLayout;
    auto *intro = new QLabel(tr("The brokers this desktop follows: this app's own and remote ones (brokerd on a server)."));
    intro->setWordWrap(true);
    toolbar->addWidget(intro, 1);
    const auto addButton = [&](const QString &text, const QString &tip, std::function<void()> action) {
        auto *button = new QPushButton(text);
        button->setToolTip(tip);
        connect(button, &QPushButton::clicked, this, std::move(action));
        toolbar->addWidget(button);
    };
    addButton(tr("Open"), tr("Administer the selected broker: a remote one opens in a window of its own (or double-click it)"),
              [this] { open(selectedName()); });
    addButton(tr("Add broker…"), tr("A remote broker: its URL, its CA for https, and an API key"), [this] { openDialog({}); });
    addButton(tr("Edit…"), tr("Change the selected remote broker's URL, CA or key"), [this] {
        if (find(selectedName()))
            openDialog(selectedName());
    });
    addButton(tr("Reconnect"), tr("Connect to the selected remote broker again (asks for its key when there is none)"),
              [this] { reconnect(selectedName()); });
    addButton(tr("Remove…"), tr("Stop following the selected remote broker and forget its key"), [this] {
        const QString name = selectedName();
        if (!find(name))
            return;
        confirmAction(this, tr("Remove"), tr("Stop following %1 and forget its key?").arg(name),
                      [this, name] { removeConnection(name); });
    });
    layout->addLayout(toolbar);

    m_model = new BrokersTableModel(this);
    m_view = makeRowTable(QStringLiteral("brokers"), m_model, BrokersTableModel::Connection);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        if (index.isValid())
            open(m_model->rowAt(index.row()).name);
    });
    layout->addWidget(m_view, 1);

    m_embedded.name = tr("Embedded");
    m_embedded.embedded = true;
    m_embedded.connection = tr("stopped");
    m_ages.setInterval(1000);
    connect(&m_ages, &QTimer::timeout, this, &BrokersPage::updateRows);
    m_ages.start();
    updateRows();
}

BrokersPage::~BrokersPage() = default;

BrokersPage::Connection *BrokersPage::find(const QString &name) const
{
    for (const auto &connection : m_connections) {
        if (connection->profile.name == name)
            return connection.get();
    }
    return nullptr;
}

RemoteFeed *BrokersPage::feed(const QString &name) const
{
    const Connection *connection = find(name);
    return connection ? connection->feed.get() : nullptr;
}

QString BrokersPage::selectedName() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? m_model->rowAt(current.row()).name : QString();
}

void BrokersPage::loadConnections()
{
    const Result<QList<ConnectionProfile>> loaded = m_profiles.load();
    if (!loaded) {
        m_bar->showError(loaded.error().message);
        return;
    }
    for (const ConnectionProfile &profile : *loaded) {
        if (find(profile.name))
            continue;
        auto connection = std::make_unique<Connection>();
        connection->profile = profile;
        Connection &added = *connection;
        m_connections.push_back(std::move(connection));
        obtainKeyAndFollow(added);
    }
    updateRows();
}

void BrokersPage::obtainKeyAndFollow(Connection &connection)
{
    const QString name = connection.profile.name;
    switch (connection.profile.keySource) {
    case ConnectionProfile::KeySource::KeyFile: {
        const Result<QByteArray> key = readKeyFile(connection.profile.keyFile);
        if (!key) {
            connection.keyProblem = key.error().message;
            return;
        }
        connection.key = *key;
        return follow(connection);
    }
    case ConnectionProfile::KeySource::AskEachSession:
        connection.keyProblem = tr("asked for once per session: Reconnect");
        return;
    case ConnectionProfile::KeySource::Keyring:
        if (!m_keyring) {
            connection.keyProblem = tr("this build has no keyring support: Reconnect asks for the key");
            return;
        }
        connection.keyProblem = tr("reading the keyring…");
        m_keyring->read(name, this, [this, name](Result<QByteArray> key) {
            Connection *reading = find(name); // it may have been removed meanwhile
            if (!reading)
                return;
            if (!key || key->isEmpty()) {
                reading->keyProblem = (key ? tr("the keyring holds an empty key") : key.error().message)
                    + tr(": Reconnect asks for the key");
                return updateRows();
            }
            reading->key = *key;
            follow(*reading);
        });
        return;
    }
}

void BrokersPage::open(const QString &name)
{
    if (name == m_embedded.name)
        return Q_EMIT embeddedOpened();
    Connection *connection = find(name);
    if (!connection)
        return;
    if (connection->key.isEmpty())
        return askForKey(name); // opened once the key is given, by a second click
    const Result<RemoteEndpoint> endpoint = endpointOf(connection->profile, connection->key);
    if (!endpoint)
        return m_bar->showError(tr("%1 cannot be opened: %2").arg(name, endpoint.error().message));
    Q_EMIT remoteOpened(name, *endpoint);
}

void BrokersPage::follow(Connection &connection)
{
    const Result<RemoteEndpoint> endpoint = endpointOf(connection.profile, connection.key);
    if (!endpoint) {
        connection.keyProblem = endpoint.error().message;
        return updateRows();
    }
    connection.keyProblem.clear();
    connection.feed = std::make_unique<RemoteFeed>(*endpoint);
    connect(connection.feed.get(), &RemoteFeed::snapshotUpdated, this, &BrokersPage::updateRows);
    connect(connection.feed.get(), &RemoteFeed::stateChanged, this, &BrokersPage::updateRows);
    connection.feed->start();
    updateRows();
}

void BrokersPage::storeKey(const ConnectionProfile &profile, const QByteArray &key)
{
    if (profile.keySource != ConnectionProfile::KeySource::Keyring || key.isEmpty())
        return;
    if (!m_keyring) {
        m_bar->showInfo(tr("No keyring support: the key of %1 is kept for this session only.").arg(profile.name));
        return;
    }
    m_keyring->write(profile.name, key, this, [this, name = profile.name](Result<void> stored) {
        if (!stored)
            m_bar->showError(tr("The key of %1 is kept for this session only: %2.").arg(name, stored.error().message));
    });
}

Result<void> BrokersPage::save()
{
    QList<ConnectionProfile> profiles;
    for (const auto &connection : m_connections)
        profiles.append(connection->profile);
    return m_profiles.save(profiles);
}

Result<void> BrokersPage::addConnection(const ConnectionProfile &profile, const QByteArray &key)
{
    if (const Result<void> checked = checkProfile(profile); !checked)
        return checked;
    if (find(profile.name) || profile.name == m_embedded.name)
        return Error{ErrorCode::Conflict, tr("A broker named %1 is already listed").arg(profile.name)};
    auto connection = std::make_unique<Connection>();
    connection->profile = profile;
    Connection &added = *connection;
    m_connections.push_back(std::move(connection));
    if (const Result<void> saved = save(); !saved) {
        m_connections.pop_back();
        return saved;
    }
    if (profile.keySource == ConnectionProfile::KeySource::KeyFile) {
        obtainKeyAndFollow(added);
    } else {
        added.key = key;
        storeKey(profile, key);
        if (key.isEmpty())
            added.keyProblem = tr("no key given: Reconnect asks for it");
        else
            follow(added);
    }
    updateRows();
    return {};
}

Result<void> BrokersPage::editConnection(const ConnectionProfile &profile, const QByteArray &key)
{
    Connection *connection = find(profile.name);
    if (!connection)
        return Error{ErrorCode::NotFound, tr("No broker named %1").arg(profile.name)};
    if (const Result<void> checked = checkProfile(profile); !checked)
        return checked;
    const ConnectionProfile previous = connection->profile;
    connection->profile = profile;
    if (const Result<void> saved = save(); !saved) {
        connection->profile = previous;
        return saved;
    }
    connection->feed.reset();
    if (!key.isEmpty() && profile.keySource != ConnectionProfile::KeySource::KeyFile) {
        connection->key = key;
        storeKey(profile, key);
        follow(*connection);
    } else if (profile.keySource == ConnectionProfile::KeySource::KeyFile || connection->key.isEmpty()) {
        obtainKeyAndFollow(*connection);
    } else {
        follow(*connection);
    }
    updateRows();
    return {};
}

void BrokersPage::removeConnection(const QString &name)
{
    const auto it = std::find_if(m_connections.begin(), m_connections.end(),
                                 [&](const auto &connection) { return connection->profile.name == name; });
    if (it == m_connections.end())
        return;
    const bool inKeyring = (*it)->profile.keySource == ConnectionProfile::KeySource::Keyring;
    m_connections.erase(it);
    if (const Result<void> saved = save(); !saved)
        m_bar->showError(saved.error().message);
    if (inKeyring && m_keyring)
        m_keyring->remove(name);
    updateRows();
}

void BrokersPage::reconnect(const QString &name)
{
    Connection *connection = find(name);
    if (!connection)
        return;
    if (connection->key.isEmpty()) {
        if (connection->profile.keySource != ConnectionProfile::KeySource::KeyFile)
            return askForKey(name);
        obtainKeyAndFollow(*connection);
        return updateRows();
    }
    if (connection->feed)
        connection->feed->start();
    else
        follow(*connection);
    updateRows();
}

void BrokersPage::askForKey(const QString &name)
{
    // open(), not the static getter: that runs a nested event loop while snapshots arrive.
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("API key"));
    dialog->setLabelText(tr("The API key for %1:").arg(name));
    dialog->setTextEchoMode(QLineEdit::Password);
    connect(dialog, &QInputDialog::textValueSelected, this, [this, name](const QString &text) {
        Connection *connection = find(name);
        if (!connection || text.trimmed().isEmpty())
            return;
        connection->key = text.trimmed().toUtf8();
        storeKey(connection->profile, connection->key);
        follow(*connection);
    });
    dialog->open();
}

void BrokersPage::openDialog(const QString &editing)
{
    auto *dialog = new ConnectionDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (const Connection *connection = find(editing))
        dialog->setProfile(connection->profile);
    connect(dialog, &QDialog::accepted, this, [this, dialog, editing] {
        const Result<void> done = editing.isEmpty() ? addConnection(dialog->profile(), dialog->apiKey())
                                                    : editConnection(dialog->profile(), dialog->apiKey());
        if (!done)
            m_bar->showError(done.error().message);
    });
    dialog->open();
}

void BrokersPage::showEmbeddedSnapshot(const BrokerSnapshot &snapshot)
{
    m_embedded.hasFigures = true;
    m_embedded.health = snapshot.health;
    m_embedded.storage = snapshot.storage;
    m_embedded.queues = int(snapshot.queues.size());
    m_embedded.messages = snapshot.messagesTotal;
    m_embedded.publishRate = snapshot.rates.publish1s;
    m_embedded.consumeRate = snapshot.rates.consume1s;
    m_embedded.updatedMs = snapshot.takenAtMs;
    updateRows();
}

void BrokersPage::showEmbeddedState(BrokerClient::State state, const QString &url)
{
    m_embedded.url = url;
    m_embedded.connected = state == BrokerClient::State::Running;
    switch (state) {
    case BrokerClient::State::Stopped: m_embedded.connection = tr("stopped"); break;
    case BrokerClient::State::Starting: m_embedded.connection = tr("starting…"); break;
    case BrokerClient::State::Running: m_embedded.connection = tr("running in this app"); break;
    case BrokerClient::State::Failed: m_embedded.connection = tr("failed to start (see Settings)"); break;
    }
    updateRows();
}

BrokerRow BrokersPage::rowOf(const Connection &connection) const
{
    BrokerRow row;
    row.name = connection.profile.name;
    row.url = connection.profile.url.toString();
    if (!connection.feed) {
        row.connection = tr("key needed: %1").arg(connection.keyProblem);
        return row;
    }
    const RemoteFeed &feed = *connection.feed;
    row.connection = feed.stateText(QDateTime::currentMSecsSinceEpoch());
    row.connected = feed.state() == RemoteFeed::State::Connected;
    row.updatedMs = feed.lastHeardMs();
    if (feed.lastHeardMs() > 0 && feed.allows(QStringLiteral("list_queues"))) {
        const BrokerSnapshot &counters = feed.brokerCounters();
        row.hasFigures = true;
        row.health = counters.health;
        row.storage = counters.storage;
        row.queues = feed.queueCount();
        row.messages = counters.messagesTotal;
        row.publishRate = counters.rates.publish1s;
        row.consumeRate = counters.rates.consume1s;
    } else if (feed.lastHeardMs() > 0) {
        row.connection += tr(" (the key may not list queues: no figures)");
    }
    return row;
}

void BrokersPage::updateRows()
{
    QList<BrokerRow> rows{m_embedded};
    for (const auto &connection : m_connections)
        rows.append(rowOf(*connection));
    std::sort(rows.begin() + 1, rows.end(), [](const BrokerRow &a, const BrokerRow &b) { return a.name < b.name; });
    m_model->setRows(rows);
}

} // namespace Broker::Ui
