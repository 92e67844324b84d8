// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyring.h"

#include <qt6keychain/keychain.h>

#include <QPointer>

namespace Broker::Ui {

namespace {

// What went wrong, in words for the user; never the key.
Error keyringError(const QKeychain::Job &job)
{
    switch (job.error()) {
    case QKeychain::EntryNotFound:
        return Error{ErrorCode::NotFound, QObject::tr("no key is stored in the keyring for this connection")};
    case QKeychain::NoBackendAvailable:
        return Error{ErrorCode::Unavailable, QObject::tr("no keyring is running (Secret Service or KWallet)")};
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return Error{ErrorCode::PermissionDenied, QObject::tr("the keyring refused access")};
    default:
        return Error{ErrorCode::Unavailable, QObject::tr("the keyring failed: %1").arg(job.errorString())};
    }
}

} // namespace

Keyring::Keyring(QString service, QObject *parent) : QObject(parent), m_service(std::move(service)) {}

void Keyring::read(const QString &connection, QObject *context, std::function<void(Result<QByteArray>)> done)
{
    auto *job = new QKeychain::ReadPasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setKey(connection);
    connect(job, &QKeychain::Job::finished, context, [job, done = std::move(done)](QKeychain::Job *) {
        if (job->error() != QKeychain::NoError)
            return done(keyringError(*job));
        done(job->binaryData());
    });
    job->start();
}

void Keyring::write(const QString &connection, const QByteArray &key, QObject *context, std::function<void(Result<void>)> done)
{
    auto *job = new QKeychain::WritePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setKey(connection);
    job->setBinaryData(key);
    connect(job, &QKeychain::Job::finished, context, [job, done = std::move(done)](QKeychain::Job *) {
        if (job->error() != QKeychain::NoError)
            return done(keyringError(*job));
        done(Result<void>{});
    });
    job->start();
}

void Keyring::remove(const QString &connection)
{
    auto *job = new QKeychain::DeletePasswordJob(m_service, this);
    job->setAutoDelete(true);
    job->setKey(connection);
    job->start();
}

} // namespace Broker::Ui
