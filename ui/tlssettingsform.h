// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/httpoptions.h"

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace Broker {
class BrokerClient;
}

namespace Broker::Ui {

// The API's HTTPS settings (api.tls) on the Settings page: a switch, the certificate, its key, an optional client CA (clients must then present a certificate it
// signed) and the lowest TLS version. "Make a certificate…" writes a self-signed one in the
// broker's thread (as `brokerd --make-cert`) and fills the form with its files.
class TlsSettingsForm : public QGroupBox
{
    Q_OBJECT
public:
    explicit TlsSettingsForm(BrokerClient &client, QWidget *parent = nullptr);

    // Relative file names start at this file's folder; a made certificate goes to its tls/ by default.
    void setConfigFile(const QString &file);
    void showOptions(const Rest::TlsOptions &options);
    // The form's fields over `options` (the handshake timeout is not in the form and stays).
    void edit(Rest::TlsOptions &options) const;
    QString problem() const;
    // Whether the form says HTTPS (api.tls.enabled).
    bool servesHttps() const;
    void setServesHttps(bool on);
    // What the last "Make a certificate…" wrote, or why it did not: for the user and for tests.
    QString madeText() const;
    // Offers "Reload the files" (for a pair renewed in place, as certbot does) while HTTPS is
    // served from the files the form shows.
    void setReloadable(bool reloadable);

Q_SIGNALS:
    void edited();
    void reloadRequested();

private:
    void chooseFile(QLineEdit *field, const QString &title);
    void makeCertificate();

    BrokerClient &m_client;
    void enableFields();

    QString m_configFile;
    QCheckBox *m_enabled;
    QLineEdit *m_certFile;
    QLineEdit *m_keyFile;
    QLineEdit *m_clientCaFile;
    QComboBox *m_minVersion;
    QPushButton *m_make;
    QPushButton *m_reload;
    QLabel *m_made;
};

} // namespace Broker::Ui
