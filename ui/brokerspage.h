// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "brokerstablemodel.h"

#include "runtime/brokerclient.h"
#include "runtime/connectionprofiles.h"
#include "runtime/remotefeed.h"

#include <QTimer>
#include <QWidget>

#include <memory>
#include <vector>

class QTableView;

namespace Broker::Ui {

class Keyring;
class MessageBar;

// Every broker the desktop follows in one table: the embedded one and any number of remote
// brokers (connections kept in ConnectionProfiles, their keys in the keyring, a key file, or
// asked once per session), each followed live over its event stream (RemoteFeed) with its
// connection state always shown: connected, reconnecting (when, and why), key refused, key
// needed, and how old the figures are. Nothing here waits on a remote broker: feeds, the keyring
// and the dialogs all answer through the event loop.
class BrokersPage : public QWidget
{
    Q_OBJECT
public:
    // `keyring` may be null (no keyring support): keys are then kept for the session only.
    BrokersPage(ConnectionProfiles profiles, Keyring *keyring, QWidget *parent = nullptr);
    ~BrokersPage() override;

    // Reads the saved connections and starts following them.
    void loadConnections();
    void showEmbeddedSnapshot(const Broker::BrokerSnapshot &snapshot);
    void showEmbeddedState(Broker::BrokerClient::State state, const QString &url);

    // Adds a remote broker: saved, its key stored where its profile says (the keyring: when that
    // fails, the key is kept for this session and the page says why), then followed.
    Result<void> addConnection(const ConnectionProfile &profile, const QByteArray &key);
    // Changes one (the name stays); a non-empty `key` replaces the stored one.
    Result<void> editConnection(const ConnectionProfile &profile, const QByteArray &key);
    void removeConnection(const QString &name);
    // Opens the named broker for administration: embeddedOpened() or remoteOpened(); a remote
    // broker without a key asks for it first.
    void open(const QString &name);
    // Connects again; asks for the key first when there is none.
    void reconnect(const QString &name);

    BrokersTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    MessageBar *messageBar() const { return m_bar; }
    // The feed of a remote broker, or null.
    RemoteFeed *feed(const QString &name) const;
    QString selectedName() const;

Q_SIGNALS:
    // The embedded broker's row was opened (its pages are the app's).
    void embeddedOpened();
    // A remote broker's row was opened: the coordinator gives it a window of its own.
    void remoteOpened(const QString &name, const Broker::RemoteEndpoint &endpoint);

private:
    struct Connection
    {
        ConnectionProfile profile;
        QByteArray key;           // in memory only
        QString keyProblem;       // why there is no key (shown until one is given)
        std::unique_ptr<RemoteFeed> feed;
    };

    Connection *find(const QString &name) const;
    void obtainKeyAndFollow(Connection &connection);
    void follow(Connection &connection);
    void askForKey(const QString &name);
    void storeKey(const ConnectionProfile &profile, const QByteArray &key);
    Result<void> save();
    void openDialog(const QString &editing);
    void updateRows();
    BrokerRow rowOf(const Connection &connection) const;

    ConnectionProfiles m_profiles;
    Keyring *m_keyring;
    std::vector<std::unique_ptr<Connection>> m_connections;
    BrokerRow m_embedded;
    BrokersTableModel *m_model;
    QTableView *m_view;
    MessageBar *m_bar;
    QTimer m_ages; // the "figures" column ages while nothing arrives
};

} // namespace Broker::Ui
