// SPDX-License-Identifier: GPL-3.0-or-later
// The redrive preview's line diff: kept, removed and added lines in order, removals first.
#include "ui/linediff.h"

#include <QTest>

using namespace Broker::Ui;

namespace {

// "  kept", "- removed", "+ added": the diff as the preview prints it.
QStringList render(const QList<DiffLine> &diff)
{
    QStringList lines;
    for (const DiffLine &line : diff) {
        const char *mark = line.kind == DiffLine::Kind::Same ? "  " : line.kind == DiffLine::Kind::Removed ? "- " : "+ ";
        lines.append(QLatin1String(mark) + line.text);
    }
    return lines;
}

} // namespace

class TestLineDiff : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void marksChangedLines_data();
    void marksChangedLines();
    void beyondTheBoundEverythingIsReplaced();
};

void TestLineDiff::marksChangedLines_data()
{
    QTest::addColumn<QStringList>("before");
    QTest::addColumn<QStringList>("after");
    QTest::addColumn<QStringList>("expected");
    QTest::addColumn<bool>("changed");
    QTest::addRow("identical") << QStringList{"a", "b"} << QStringList{"a", "b"} << QStringList{"  a", "  b"} << false;
    QTest::addRow("one-line-changed") << QStringList{"{", "  \"x\": 1", "}"} << QStringList{"{", "  \"x\": 2", "}"}
                                      << QStringList{"  {", "-   \"x\": 1", "+   \"x\": 2", "  }"} << true;
    QTest::addRow("line-added") << QStringList{"a", "c"} << QStringList{"a", "b", "c"}
                                << QStringList{"  a", "+ b", "  c"} << true;
    QTest::addRow("line-removed") << QStringList{"a", "b", "c"} << QStringList{"a", "c"}
                                  << QStringList{"  a", "- b", "  c"} << true;
    QTest::addRow("middle-realigned") << QStringList{"a", "x", "b", "y", "c"} << QStringList{"a", "b", "z", "c"}
                                      << QStringList{"  a", "- x", "  b", "- y", "+ z", "  c"} << true;
    QTest::addRow("from-empty") << QStringList{} << QStringList{"a"} << QStringList{"+ a"} << true;
}

void TestLineDiff::marksChangedLines()
{
    QFETCH(QStringList, before);
    QFETCH(QStringList, after);
    QFETCH(QStringList, expected);
    QFETCH(bool, changed);
    const QList<DiffLine> diff = diffLines(before, after);
    QCOMPARE(render(diff), expected);
    QCOMPARE(hasChanges(diff), changed);
}

void TestLineDiff::beyondTheBoundEverythingIsReplaced()
{
    QStringList before{"head"};
    QStringList after{"head"};
    for (qsizetype i = 0; i <= MaxDiffLines; ++i) {
        before.append(QString::number(i));
        after.append(QStringLiteral("x%1").arg(i));
    }
    const QList<DiffLine> diff = diffLines(before, after);
    // The equal first line is kept; past it every old line goes, then every new one comes.
    QCOMPARE(diff.size(), 1 + 2 * (MaxDiffLines + 1));
    QCOMPARE(diff.first(), (DiffLine{DiffLine::Kind::Same, "head"}));
    QCOMPARE(diff.at(1), (DiffLine{DiffLine::Kind::Removed, "0"}));
    QCOMPARE(diff.at(MaxDiffLines + 2), (DiffLine{DiffLine::Kind::Added, "x0"}));
    QCOMPARE(diff.last(), (DiffLine{DiffLine::Kind::Added, QStringLiteral("x%1").arg(MaxDiffLines)}));
}

QTEST_APPLESS_MAIN(TestLineDiff)
#include "tst_linediff.moc"
