// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A local HTTP target on 127.0.0.1 (a free port) for webhook tests. Answers each request as the
// next entry of its script says — a status ("200", "500"), "hang" (never answers), "close" (drops
// the connection), or "slow" (200 after slowMs) — the last entry repeating; keeps what it
// received, and counts how many requests it held unanswered at once.

#include <QHash>
#include <QList>
#include <QPointer>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

namespace Broker::Testing {

class HttpTarget : public QObject
{
public:
    struct Request
    {
        QByteArray head;
        QByteArray body;
        QByteArray header(const QByteArray &name) const
        {
            for (const QByteArray &line : head.split('\n')) {
                if (line.toLower().startsWith(name.toLower() + ':'))
                    return line.mid(name.size() + 1).trimmed();
            }
            return {};
        }
    };

    explicit HttpTarget(QStringList script, int slowMs = 150) : m_script(std::move(script)), m_slowMs(slowMs)
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
            }
        });
    }
    QUrl url(const QString &path = QStringLiteral("/hook?token=t0ps3cret")) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path));
    }
    void setScript(QStringList script) { m_script = std::move(script); }
    const QList<Request> &requests() const { return m_requests; }
    int mostAtOnce() const { return m_mostAtOnce; }

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
            if (headEnd < 0)
                return;
            const QByteArray head = buffer.left(headEnd);
            qsizetype length = 0;
            for (const QByteArray &line : head.split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            if (buffer.size() < headEnd + 4 + length)
                return;
            m_requests.append({head, buffer.mid(headEnd + 4, length)});
            buffer.remove(0, headEnd + 4 + length);
            answer(socket, m_script.value(qMin(m_requests.size() - 1, m_script.size() - 1)));
        }
    }
    void answer(QTcpSocket *socket, const QString &step)
    {
        if (step == u"close")
            return socket->abort();
        ++m_atOnce;
        m_mostAtOnce = qMax(m_mostAtOnce, m_atOnce);
        if (step == u"hang")
            return;
        const auto reply = [this, socket = QPointer(socket)](const QByteArray &status) {
            --m_atOnce;
            if (socket)
                socket->write("HTTP/1.1 " + status + " X\r\nContent-Length: 0\r\n\r\n");
        };
        if (step == u"slow")
            QTimer::singleShot(m_slowMs, this, [reply] { reply("200"); });
        else
            reply(step.toLatin1());
    }

    QTcpServer m_server;
    QStringList m_script;
    int m_slowMs;
    QList<Request> m_requests;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    int m_atOnce = 0;
    int m_mostAtOnce = 0;
};

} // namespace Broker::Testing
