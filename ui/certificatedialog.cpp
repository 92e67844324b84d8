// SPDX-License-Identifier: GPL-3.0-or-later
#include "certificatedialog.h"

#include "palette.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>

namespace Broker::Ui {

CertificateDialog::CertificateDialog(const QString &directory, const QStringList &hosts, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Make a certificate"));
    auto *form = new QFormLayout(this);
    auto *intro = new QLabel(tr("A self-signed certificate for the API, for this computer or a LAN: a one-off CA signs it "
                                "and its key is thrown away. Clients trust <tt>ca.crt</tt> from the folder "
                                "(<tt>brokerctl --cacert</tt>, <tt>curl --cacert</tt>)."));
    intro->setWordWrap(true);
    form->addRow(intro);
    auto *directoryRow = new QHBoxLayout;
    m_directory = new QLineEdit(directory);
    m_directory->setObjectName(QStringLiteral("certificateDirectory"));
    m_directory->setToolTip(tr("ca.crt, server.crt and server.key are written here (the folder is made when missing)"));
    auto *browse = new QPushButton(tr("Browse…"));
    browse->setAutoDefault(false);
    directoryRow->addWidget(m_directory, 1);
    directoryRow->addWidget(browse);
    form->addRow(tr("&Folder"), directoryRow);
    m_hosts = new QLineEdit(hosts.join(QStringLiteral(", ")));
    m_hosts->setObjectName(QStringLiteral("certificateHosts"));
    m_hosts->setToolTip(tr("The host names and IP addresses clients use to reach this broker, separated by commas"));
    form->addRow(tr("&Names"), m_hosts);
    m_replace = new QCheckBox(tr("&Replace the files when they exist"));
    m_replace->setObjectName(QStringLiteral("certificateReplace"));
    form->addRow(QString(), m_replace);
    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("problem"));
    m_problem->setWordWrap(true);
    m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    Palette::setTextRole(m_problem, Palette::ProblemText);
    form->addRow(m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_make = buttons->addButton(tr("Make"), QDialogButtonBox::AcceptRole);
    m_make->setObjectName(QStringLiteral("make"));
    m_make->setDefault(true);
    buttons->button(QDialogButtonBox::Cancel)->setAutoDefault(false);
    form->addRow(buttons);
    resize(560, sizeHint().height());

    connect(buttons, &QDialogButtonBox::accepted, this, &CertificateDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &CertificateDialog::chooseDirectory);
    for (QLineEdit *edit : {m_directory, m_hosts})
        connect(edit, &QLineEdit::textChanged, this, [this] { m_makerError.clear(); updateState(); });
    connect(m_replace, &QCheckBox::toggled, this, [this] { m_makerError.clear(); updateState(); });
    updateState();
}

CertificateRequest CertificateDialog::request() const
{
    CertificateRequest request;
    request.directory = m_directory->text().trimmed();
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    request.hosts = m_hosts->text().split(separators, Qt::SkipEmptyParts);
    request.force = m_replace->isChecked();
    return request;
}

QString CertificateDialog::problem() const
{
    if (!m_makerError.isEmpty())
        return m_makerError;
    if (m_directory->text().trimmed().isEmpty())
        return tr("Choose the folder for the files");
    if (request().hosts.isEmpty())
        return tr("Name at least one host or address that clients connect to");
    return {};
}

void CertificateDialog::updateState()
{
    const QString current = problem();
    m_problem->setText(m_busy ? tr("Making…") : current);
    m_make->setEnabled(!m_busy && current.isEmpty());
}

void CertificateDialog::accept()
{
    updateState();
    if (m_busy || !m_make->isEnabled())
        return;
    m_busy = true;
    for (QWidget *input : std::initializer_list<QWidget *>{m_directory, m_hosts, m_replace})
        input->setEnabled(false);
    updateState();
    Q_EMIT makeRequested(request());
}

void CertificateDialog::finish(const QString &error)
{
    m_busy = false;
    for (QWidget *input : std::initializer_list<QWidget *>{m_directory, m_hosts, m_replace})
        input->setEnabled(true);
    if (error.isEmpty()) {
        done(Accepted);
        return;
    }
    m_makerError = error;
    updateState();
}

void CertificateDialog::chooseDirectory()
{
    // open(), not the static getter: that runs a nested event loop while snapshots arrive.
    auto *dialog = new QFileDialog(this, tr("Folder for the certificate"), m_directory->text());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    connect(dialog, &QFileDialog::fileSelected, m_directory, &QLineEdit::setText);
    dialog->open();
}

} // namespace Broker::Ui
