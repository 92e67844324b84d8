// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectiondialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Broker::Ui {

namespace {

QWidget *withBrowse(QLineEdit *edit, const QString &caption, QWidget *parent)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto *browse = new QPushButton(QObject::tr("Choose…"), row);
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, row, [edit, caption, row] {
        // open(), not the static getter: that runs a nested event loop while snapshots arrive.
        auto *dialog = new QFileDialog(row->window(), caption);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setFileMode(QFileDialog::ExistingFile);
        QObject::connect(dialog, &QFileDialog::fileSelected, edit, &QLineEdit::setText);
        dialog->open();
    });
    return row;
}

} // namespace

ConnectionDialog::ConnectionDialog(QWidget *parent)
    : QDialog(parent),
      m_name(new QLineEdit(this)),
      m_url(new QLineEdit(this)),
      m_caFile(new QLineEdit(this)),
      m_keySource(new QComboBox(this)),
      m_key(new QLineEdit(this)),
      m_keyFile(new QLineEdit(this)),
      m_problem(new QLabel(this))
{
    setWindowTitle(tr("Remote broker"));
    m_url->setPlaceholderText(QStringLiteral("https://broker.example:8443"));
    m_caFile->setPlaceholderText(tr("https only; empty: the system's CAs"));
    m_keySource->addItem(tr("Keyring (Secret Service, KWallet)"), int(ConnectionProfile::KeySource::Keyring));
    m_keySource->addItem(tr("Key file"), int(ConnectionProfile::KeySource::KeyFile));
    m_keySource->addItem(tr("Ask once per session"), int(ConnectionProfile::KeySource::AskEachSession));
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setPlaceholderText(tr("the broker's API key (X-API-Key)"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: palette(highlight)"));
    m_problem->hide();

    auto *form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("URL"), m_url);
    form->addRow(tr("CA certificate"), withBrowse(m_caFile, tr("CA certificate (PEM)"), this));
    form->addRow(tr("API key from"), m_keySource);
    form->addRow(tr("API key"), m_key);
    form->addRow(tr("Key file"), withBrowse(m_keyFile, tr("Key file"), this));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &ConnectionDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ConnectionDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    connect(m_keySource, &QComboBox::currentIndexChanged, this, &ConnectionDialog::keySourceChanged);
    keySourceChanged();
}

void ConnectionDialog::keySourceChanged()
{
    const auto source = ConnectionProfile::KeySource(m_keySource->currentData().toInt());
    m_keyFile->parentWidget()->setEnabled(source == ConnectionProfile::KeySource::KeyFile);
    m_key->setEnabled(source != ConnectionProfile::KeySource::KeyFile);
}

void ConnectionDialog::setProfile(const ConnectionProfile &profile)
{
    m_name->setText(profile.name);
    m_name->setReadOnly(true);
    m_url->setText(profile.url.toString());
    m_caFile->setText(profile.caFile);
    m_keySource->setCurrentIndex(m_keySource->findData(int(profile.keySource)));
    m_keyFile->setText(profile.keyFile);
    m_key->setPlaceholderText(tr("unchanged"));
}

ConnectionProfile ConnectionDialog::profile() const
{
    ConnectionProfile profile;
    profile.name = m_name->text().trimmed();
    profile.url = QUrl(m_url->text().trimmed());
    profile.caFile = m_caFile->text().trimmed();
    profile.keySource = ConnectionProfile::KeySource(m_keySource->currentData().toInt());
    if (profile.keySource == ConnectionProfile::KeySource::KeyFile)
        profile.keyFile = m_keyFile->text().trimmed();
    return profile;
}

QByteArray ConnectionDialog::apiKey() const
{
    return m_key->text().trimmed().toUtf8();
}

void ConnectionDialog::accept()
{
    const Result<void> checked = checkProfile(profile());
    if (!checked) {
        m_problem->setText(checked.error().message);
        m_problem->show();
        return;
    }
    QDialog::accept();
}

} // namespace Broker::Ui
