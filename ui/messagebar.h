// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QToolButton;

namespace Broker::Ui {

// How the last action went, without moving anything on the page. The MessageBar itself is a
// zero-height anchor: put it in the page's layout (or just give it the page as parent) and the
// visible bar floats over the bottom of that page, so rows and buttons never shift under the
// pointer when a message comes or goes. Successes fade after a few seconds; errors stay longer,
// carry a close button, and are replaced by the next message (a later success means the problem
// is gone). Never a modal box: the broker keeps running.
class MessageBar : public QWidget
{
    Q_OBJECT
public:
    enum class Kind { None, Info, Error };

    explicit MessageBar(QWidget *parent = nullptr);
    ~MessageBar() override;

    void showError(const QString &text);
    void showInfo(const QString &text);
    void dismiss();

    Kind kind() const { return m_kind; }
    QString text() const;
    // The floating bar (visible while a message is shown).
    QWidget *panel() const { return m_panel; }
    void setTimeouts(int infoMs, int errorMs);

protected:
    bool event(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void show(Kind kind, const QString &text, int timeoutMs);
    void attachPanel();
    void placePanel();

    QPointer<QWidget> m_host;
    QPointer<QWidget> m_panel; // a child of the host page, owned by this bar
    QLabel *m_label;
    QToolButton *m_close;
    QTimer m_hide;
    Kind m_kind = Kind::None;
    int m_infoMs = 6000;
    int m_errorMs = 30000;
};

} // namespace Broker::Ui
