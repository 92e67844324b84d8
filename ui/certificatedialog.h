// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/certificaterequest.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace Broker::Ui {

// Asks where a self-signed certificate for the API goes and which names it is for (as
// `brokerd --make-cert DIR --host …`). Make emits makeRequested and the dialog stays open, its
// input kept, until finish(): an error (a file that exists, a folder that cannot be written)
// shows inline.
class CertificateDialog : public QDialog
{
    Q_OBJECT
public:
    CertificateDialog(const QString &directory, const QStringList &hosts, QWidget *parent = nullptr);

    CertificateRequest request() const;
    QString problem() const; // what stops Make right now, or empty

    void accept() override;
    // The maker's answer: empty closes the dialog as accepted, a message keeps it open.
    void finish(const QString &error);

Q_SIGNALS:
    void makeRequested(const Broker::CertificateRequest &request);

private:
    void updateState();
    void chooseDirectory();

    QLineEdit *m_directory;
    QLineEdit *m_hosts;
    QCheckBox *m_replace;
    QLabel *m_problem;
    QPushButton *m_make;
    QString m_makerError;
    bool m_busy = false;
};

} // namespace Broker::Ui
