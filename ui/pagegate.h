// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStackedWidget>

class QLabel;

namespace Broker::Ui {

// A page, or why it cannot be used here: a key without the permission the page needs, or a page
// that belongs to the embedded broker alone (Settings in a remote broker's window). Shown in the
// page's place as a notice, not as errors on every click; the page comes back when it is open.
class PageGate : public QStackedWidget
{
    Q_OBJECT
public:
    explicit PageGate(QWidget *page, QWidget *parent = nullptr);

    QWidget *page() const { return m_page; }
    bool isOpen() const { return currentWidget() == m_page; }
    // Shows the page.
    void open();
    // Shows `title` and `explanation` (rich text) in the page's place.
    void close(const QString &title, const QString &explanation);
    QLabel *notice() const { return m_explanation; }

private:
    QWidget *m_page;
    QLabel *m_title;
    QLabel *m_explanation;
};

} // namespace Broker::Ui
