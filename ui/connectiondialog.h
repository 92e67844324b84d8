// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/connectionprofiles.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;

namespace Broker::Ui {

// Adds or edits a remote broker: name, URL, the CA of an https broker, where its API key comes
// from (the keyring, a file, or asked each session) and the key itself. OK is taken only for a
// profile that checks out (checkProfile); the reason is shown in place otherwise.
class ConnectionDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectionDialog(QWidget *parent = nullptr);

    void setProfile(const ConnectionProfile &profile); // editing: the name stays
    ConnectionProfile profile() const;
    // The key typed (empty: none; a key file's is read by the caller).
    QByteArray apiKey() const;
    void accept() override;

    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *urlEdit() const { return m_url; }
    QLineEdit *keyEdit() const { return m_key; }
    QComboBox *keySourceBox() const { return m_keySource; }

private:
    void keySourceChanged();

    QLineEdit *m_name;
    QLineEdit *m_url;
    QLineEdit *m_caFile;
    QComboBox *m_keySource;
    QLineEdit *m_key;
    QLineEdit *m_keyFile;
    QLabel *m_problem;
};

} // namespace Broker::Ui
