// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace Broker::Ui {

// One line of a line diff: kept in both texts, only in the old one, or only in the new one.
struct DiffLine
{
    enum class Kind { Same, Removed, Added };
    Kind kind = Kind::Same;
    QString text;

    friend bool operator==(const DiffLine &, const DiffLine &) = default;
};

// The lines of `before` and `after` in order, each marked, from a longest common subsequence of
// whole lines. Meant for message payloads (pretty-printed JSON): quadratic in the line counts, so
// beyond `MaxDiffLines` lines on either side it gives up on alignment and shows every old line
// removed, then every new one added (still correct, only less precise).
inline constexpr qsizetype MaxDiffLines = 2000;
QList<DiffLine> diffLines(const QStringList &before, const QStringList &after);
// Whether any line differs.
bool hasChanges(const QList<DiffLine> &diff);

} // namespace Broker::Ui
