// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <functional>

class QHBoxLayout;
class QLabel;
class QPushButton;

namespace Broker::Ui {

// A problem that stays on its page until it is dealt with: what failed, what runs instead, and
// the buttons that fix it in one click (Retry, Use port …). Unlike the status bar it cannot be
// missed, and unlike a modal box the page stays usable beside it. It sits in the page's layout
// (it stays until the problem is dealt with, so it does not come and go under the pointer as the
// floating MessageBar's notes do) and takes the error colours of the palette.
class ProblemBanner : public QWidget
{
    Q_OBJECT
public:
    explicit ProblemBanner(QWidget *parent = nullptr);

    // Shows `text` (rich text) and no buttons yet; addAction() adds them.
    void showProblem(const QString &text);
    QPushButton *addAction(const QString &text, std::function<void()> action);
    void clear();
    QString text() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyColours();

    QLabel *m_text;
    QHBoxLayout *m_buttons;
};

} // namespace Broker::Ui
