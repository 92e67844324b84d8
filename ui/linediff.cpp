// SPDX-License-Identifier: GPL-3.0-or-later
#include "linediff.h"

#include <vector>

namespace Broker::Ui {

QList<DiffLine> diffLines(const QStringList &before, const QStringList &after)
{
    // Equal heads and tails need no table: most edits touch a few lines in the middle.
    qsizetype head = 0;
    while (head < before.size() && head < after.size() && before.at(head) == after.at(head))
        ++head;
    qsizetype tail = 0;
    while (tail < before.size() - head && tail < after.size() - head
           && before.at(before.size() - 1 - tail) == after.at(after.size() - 1 - tail))
        ++tail;
    const qsizetype n = before.size() - head - tail;
    const qsizetype m = after.size() - head - tail;

    QList<DiffLine> diff;
    diff.reserve(before.size() + after.size());
    for (qsizetype i = 0; i < head; ++i)
        diff.append({DiffLine::Kind::Same, before.at(i)});
    if (n > MaxDiffLines || m > MaxDiffLines) {
        for (qsizetype i = 0; i < n; ++i)
            diff.append({DiffLine::Kind::Removed, before.at(head + i)});
        for (qsizetype j = 0; j < m; ++j)
            diff.append({DiffLine::Kind::Added, after.at(head + j)});
    } else {
        // lcs[i][j]: the longest common subsequence of the middle parts from i and j on.
        std::vector<std::vector<int>> lcs(size_t(n + 1), std::vector<int>(size_t(m + 1), 0));
        for (qsizetype i = n - 1; i >= 0; --i)
            for (qsizetype j = m - 1; j >= 0; --j)
                lcs[size_t(i)][size_t(j)] = before.at(head + i) == after.at(head + j)
                    ? lcs[size_t(i + 1)][size_t(j + 1)] + 1
                    : qMax(lcs[size_t(i + 1)][size_t(j)], lcs[size_t(i)][size_t(j + 1)]);
        qsizetype i = 0;
        qsizetype j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && before.at(head + i) == after.at(head + j)) {
                diff.append({DiffLine::Kind::Same, before.at(head + i)});
                ++i;
                ++j;
            } else if (i < n && (j == m || lcs[size_t(i + 1)][size_t(j)] >= lcs[size_t(i)][size_t(j + 1)])) {
                diff.append({DiffLine::Kind::Removed, before.at(head + i)}); // removals first, as diff -u
                ++i;
            } else {
                diff.append({DiffLine::Kind::Added, after.at(head + j)});
                ++j;
            }
        }
    }
    for (qsizetype i = before.size() - tail; i < before.size(); ++i)
        diff.append({DiffLine::Kind::Same, before.at(i)});
    return diff;
}

bool hasChanges(const QList<DiffLine> &diff)
{
    for (const DiffLine &line : diff) {
        if (line.kind != DiffLine::Kind::Same)
            return true;
    }
    return false;
}

} // namespace Broker::Ui
