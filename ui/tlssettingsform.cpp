// SPDX-License-Identifier: GPL-3.0-or-later
#include "tlssettingsform.h"

#include "certificatedialog.h"
#include "palette.h"

#include "runtime/brokerclient.h"
#include "runtime/continuation.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>

namespace Broker::Ui {

TlsSettingsForm::TlsSettingsForm(BrokerClient &client, QWidget *parent)
    : QGroupBox(tr("HTTPS (TLS)"), parent), m_client(client)
{
    setObjectName(QStringLiteral("tls"));
    auto *form = new QFormLayout(this);
    // A check box rather than a checkable group: "Make a certificate…" stays usable while HTTPS is off.
    m_enabled = new QCheckBox(tr("Serve the API over HTTPS"));
    m_enabled->setObjectName(QStringLiteral("tlsEnabled"));
    m_enabled->setToolTip(tr("API keys and messages are encrypted on the way, and clients can check that they reach "
                             "this broker"));
    form->addRow(m_enabled);
    auto fileRow = [this, form](const QString &label, const QString &name, const QString &tip, const QString &title) {
        auto *row = new QHBoxLayout;
        auto *field = new QLineEdit;
        field->setObjectName(name);
        field->setToolTip(tip);
        auto *browse = new QPushButton(tr("Browse…"));
        browse->setObjectName(name + QStringLiteral("Browse"));
        row->addWidget(field, 1);
        row->addWidget(browse);
        form->addRow(label, row);
        connect(browse, &QPushButton::clicked, this, [this, field, title] { chooseFile(field, title); });
        connect(field, &QLineEdit::textChanged, this, &TlsSettingsForm::edited);
        return field;
    };
    m_certFile = fileRow(tr("Certificate"), QStringLiteral("tlsCertFile"),
                         tr("PEM: the server's certificate, then any intermediate ones. A relative name starts at the "
                            "configuration file's folder"),
                         tr("Certificate file"));
    m_keyFile = fileRow(tr("Key"), QStringLiteral("tlsKeyFile"),
                        tr("PEM: the certificate's private key, unencrypted; keep it readable by you only (0600)"),
                        tr("Key file"));
    m_clientCaFile = fileRow(tr("Client CA"), QStringLiteral("tlsClientCaFile"),
                             tr("Optional. When set, only clients with a certificate this CA signed can connect "
                                "(mutual TLS); API keys still apply"),
                             tr("Client CA file"));
    m_clientCaFile->setPlaceholderText(tr("none: any client may connect"));
    m_minVersion = new QComboBox;
    m_minVersion->setObjectName(QStringLiteral("tlsMinVersion"));
    m_minVersion->addItem(tr("TLS 1.2"), QStringLiteral("1.2"));
    m_minVersion->addItem(tr("TLS 1.3 (clients from 2018 on)"), QStringLiteral("1.3"));
    form->addRow(tr("Lowest version"), m_minVersion);
    auto *makeRow = new QHBoxLayout;
    m_make = new QPushButton(tr("Make a certificate…"));
    m_make->setObjectName(QStringLiteral("makeCertificate"));
    m_make->setToolTip(tr("Write a self-signed certificate and key for this computer or a LAN, and use them"));
    m_made = new QLabel;
    m_made->setObjectName(QStringLiteral("madeCertificate"));
    m_made->setWordWrap(true);
    m_made->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reload = new QPushButton(tr("Reload the files"));
    m_reload->setObjectName(QStringLiteral("reloadCertificate"));
    m_reload->setToolTip(tr("Read the certificate and key again (renewed in place) and serve them to new connections; "
                            "open connections are kept"));
    m_reload->hide();
    makeRow->addWidget(m_make);
    makeRow->addWidget(m_reload);
    makeRow->addWidget(m_made, 1);
    form->addRow(QString(), makeRow);

    connect(m_enabled, &QCheckBox::toggled, this, &TlsSettingsForm::enableFields);
    connect(m_enabled, &QCheckBox::toggled, this, &TlsSettingsForm::edited);
    connect(m_minVersion, &QComboBox::currentIndexChanged, this, &TlsSettingsForm::edited);
    connect(m_make, &QPushButton::clicked, this, &TlsSettingsForm::makeCertificate);
    connect(m_reload, &QPushButton::clicked, this, &TlsSettingsForm::reloadRequested);
    enableFields();
}

void TlsSettingsForm::enableFields()
{
    for (QWidget *field : findChildren<QWidget *>()) {
        if (field != m_enabled && field != m_make && field != m_made && field != m_reload)
            field->setEnabled(m_enabled->isChecked());
    }
}

bool TlsSettingsForm::servesHttps() const
{
    return m_enabled->isChecked();
}

void TlsSettingsForm::setServesHttps(bool on)
{
    m_enabled->setChecked(on);
}

void TlsSettingsForm::setConfigFile(const QString &file)
{
    m_configFile = file;
}

void TlsSettingsForm::showOptions(const Rest::TlsOptions &options)
{
    m_enabled->setChecked(options.enabled);
    m_certFile->setText(options.certFile);
    m_keyFile->setText(options.keyFile);
    m_clientCaFile->setText(options.clientCaFile);
    m_minVersion->setCurrentIndex(qMax(0, m_minVersion->findData(options.minVersion)));
}

void TlsSettingsForm::edit(Rest::TlsOptions &options) const
{
    options.enabled = m_enabled->isChecked();
    options.certFile = m_certFile->text().trimmed();
    options.keyFile = m_keyFile->text().trimmed();
    options.clientCaFile = m_clientCaFile->text().trimmed();
    options.minVersion = m_minVersion->currentData().toString();
}

QString TlsSettingsForm::problem() const
{
    if (m_enabled->isChecked() && (m_certFile->text().trimmed().isEmpty() || m_keyFile->text().trimmed().isEmpty()))
        return tr("HTTPS needs a certificate and its key: choose the files, or make a certificate");
    return {};
}

void TlsSettingsForm::setReloadable(bool reloadable)
{
    m_reload->setVisible(reloadable);
}

QString TlsSettingsForm::madeText() const
{
    return m_made->text();
}

void TlsSettingsForm::chooseFile(QLineEdit *field, const QString &title)
{
    const QString folder = m_configFile.isEmpty() ? QDir::homePath() : QFileInfo(m_configFile).absolutePath();
    // open(), not the static getter: that runs a nested event loop while snapshots arrive.
    auto *dialog = new QFileDialog(this, title, folder);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setNameFilters({tr("PEM files (*.pem *.crt *.cer *.key)"), tr("All files (*)")});
    connect(dialog, &QFileDialog::fileSelected, field, &QLineEdit::setText);
    dialog->open();
}

void TlsSettingsForm::makeCertificate()
{
    const QString folder = m_configFile.isEmpty() ? QDir::homePath() : QFileInfo(m_configFile).absolutePath();
    auto *dialog = new CertificateDialog(QDir(folder).filePath(QStringLiteral("tls")),
                                         BrokerClient::defaultCertificateHosts(), this);
    dialog->setObjectName(QStringLiteral("certificateDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &CertificateDialog::makeRequested, this, [this, dialog](const CertificateRequest &request) {
        // The form, not the dialog, waits: files written after a Cancel still reach the form.
        whenFinished(m_client.makeCertificate(request), this,
                     [this, dialog = QPointer<CertificateDialog>(dialog)](const Result<MadeCertificate> &made) {
            if (!made) {
                if (dialog)
                    dialog->finish(made.error().message);
                else
                    m_made->setText(tr("No certificate made: %1").arg(made.error().message));
                return;
            }
            m_enabled->setChecked(true);
            m_certFile->setText(made->certFile);
            m_keyFile->setText(made->keyFile);
            m_made->setText(tr("Made for %1. SHA-256 %2. Clients trust %3. Apply to serve it.")
                                .arg(made->hosts.join(QStringLiteral(", ")), made->fingerprint, made->caFile));
            if (dialog)
                dialog->finish(QString());
        });
    });
    dialog->open();
}

} // namespace Broker::Ui
