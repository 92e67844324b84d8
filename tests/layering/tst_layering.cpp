// SPDX-License-Identifier: GPL-3.0-or-later
// The house plan, checked: docs/architecture.md names each room (its folder and the rooms it may
// use directly); the build links them (rooms.txt, written by cmake/BrokerRooms.cmake). The test
// proves that the two agree, that the graph has no cycle, and that every #include line of a room
// reaches only itself, rooms it may use (directly or through them) and the libraries those link.
// Headers are read as text, so the rule holds for code a compiler never sees in this build.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QLibraryInfo>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <map>

namespace {

struct Room
{
    QString folder;
    QStringList rooms;     // rooms used directly; "(name)": linked PRIVATE, its headers not passed on
    QStringList libraries; // third-party targets linked directly (Qt6::Network, PkgConfig::hiredis, ...)
};
using Plan = std::map<QString, Room>;

// "name  folder  -> dep dep | lib lib" lines; `#` starts a comment.
Plan parsePlan(const QString &text, QString *error)
{
    Plan plan;
    static const QRegularExpression line(QStringLiteral("^(\\w+)\\s+(\\S+)\\s+->\\s*([^|]*)(?:\\|(.*))?$"));
    for (QString raw : text.split(QLatin1Char('\n'))) {
        raw = raw.section(QLatin1Char('#'), 0, 0).trimmed();
        if (raw.isEmpty())
            continue;
        const QRegularExpressionMatch m = line.match(raw);
        if (!m.hasMatch()) {
            *error = QStringLiteral("unreadable line: ") + raw;
            return {};
        }
        Room room;
        room.folder = m.captured(2);
        room.rooms = m.captured(3).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        room.libraries = m.captured(4).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        room.rooms.sort();
        room.libraries.sort();
        plan[m.captured(1)] = room;
    }
    return plan;
}

QString readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

// The plan's block in docs/architecture.md: the fenced block after the line "<!-- rooms -->".
Plan documentedPlan(QString *error)
{
    const QString doc = readFile(QStringLiteral(BROKER_SOURCE_DIR "/docs/architecture.md"));
    const qsizetype marker = doc.indexOf(QStringLiteral("<!-- rooms -->"));
    const qsizetype open = doc.indexOf(QStringLiteral("```"), marker);
    const qsizetype start = doc.indexOf(QLatin1Char('\n'), open);
    const qsizetype close = doc.indexOf(QStringLiteral("```"), start);
    if (marker < 0 || open < 0 || close < 0) {
        *error = QStringLiteral("docs/architecture.md has no rooms block");
        return {};
    }
    return parsePlan(doc.mid(start, close - start), error);
}

Plan builtPlan(QString *error)
{
    const QString text = readFile(QStringLiteral(BROKER_ROOMS_FILE));
    if (text.isEmpty()) {
        *error = QStringLiteral("no rooms file from the build");
        return {};
    }
    return parsePlan(text, error);
}

QString roomName(const QString &dep)
{
    return dep.startsWith(QLatin1Char('(')) ? dep.mid(1, dep.size() - 2) : dep;
}

// Rooms reachable from `name` over every link (public and private), itself included: what
// `name` depends on at all.
QSet<QString> dependencies(const Plan &plan, const QString &name)
{
    QSet<QString> seen{name};
    QStringList todo{name};
    while (!todo.isEmpty()) {
        const auto it = plan.find(todo.takeLast());
        if (it == plan.end())
            continue;
        for (const QString &dep : it->second.rooms) {
            if (!seen.contains(roomName(dep))) {
                seen.insert(roomName(dep));
                todo.append(roomName(dep));
            }
        }
    }
    return seen;
}

// Rooms whose headers `name` may include, itself included: its direct links, and what those
// pass on (their public links, and so on); not what they link privately. `publicOnly`: what
// `name`'s own headers may include, since whoever links `name` sees them: only what it passes on.
QSet<QString> reachable(const Plan &plan, const QString &name, bool publicOnly = false)
{
    QSet<QString> seen{name};
    QStringList todo;
    if (const auto it = plan.find(name); it != plan.end())
        for (const QString &dep : it->second.rooms)
            if (!publicOnly || !dep.startsWith(QLatin1Char('(')))
                todo.append(roomName(dep));
    while (!todo.isEmpty()) {
        const QString room = todo.takeLast();
        if (seen.contains(room))
            continue;
        seen.insert(room);
        if (const auto it = plan.find(room); it != plan.end())
            for (const QString &dep : it->second.rooms)
                if (!dep.startsWith(QLatin1Char('(')))
                    todo.append(dep);
    }
    return seen;
}

// The Qt module a header such as <QTcpSocket> or <QtNetwork/QTcpSocket> belongs to ("Network").
QString qtModuleOf(const QString &header)
{
    static QHash<QString, QString> cache;
    if (const auto it = cache.constFind(header); it != cache.constEnd())
        return *it;
    QString module;
    const QString root = QLibraryInfo::path(QLibraryInfo::HeadersPath);
    if (header.startsWith(QLatin1String("Qt")) && header.contains(QLatin1Char('/'))) {
        module = header.section(QLatin1Char('/'), 0, 0).mid(2);
    } else if (header.startsWith(QLatin1Char('Q'))) {
        for (const QString &dir : QDir(root).entryList({QStringLiteral("Qt*")}, QDir::Dirs)) {
            if (QFile::exists(root + QLatin1Char('/') + dir + QLatin1Char('/') + header)) {
                module = dir.mid(2);
                break;
            }
        }
    }
    cache.insert(header, module);
    return module;
}

// The library an angle include needs, as the build names it; empty for the C/C++ library.
QString libraryOf(const QString &header)
{
    if (header.startsWith(QLatin1String("hiredis/")))
        return QStringLiteral("PkgConfig::hiredis");
    if (header.startsWith(QLatin1String("yaml-cpp/")))
        return QStringLiteral("yaml-cpp");
    if (header.startsWith(QLatin1String("readline/")))
        return QStringLiteral("PkgConfig::readline");
    if (header.startsWith(QLatin1String("openssl/")))
        return QStringLiteral("OpenSSL::Crypto");
    const QString module = qtModuleOf(header);
    return module.isEmpty() ? QString() : QStringLiteral("Qt6::") + module;
}

// Libraries a room may include: what it and the rooms it may use link, with Qt's own module
// dependencies (Network and Widgets bring Core; Widgets brings Gui).
QSet<QString> librariesFor(const Plan &plan, const QString &name)
{
    QSet<QString> libraries;
    for (const QString &room : reachable(plan, name)) {
        if (const auto it = plan.find(room); it != plan.end())
            for (const QString &library : it->second.libraries)
                libraries.insert(library);
    }
    if (!libraries.isEmpty())
        libraries.insert(QStringLiteral("Qt6::Core"));
    if (libraries.contains(QStringLiteral("Qt6::Widgets")))
        libraries.insert(QStringLiteral("Qt6::Gui"));
    if (libraries.contains(QStringLiteral("Qt6::HttpServer")))
        libraries.insert(QStringLiteral("Qt6::Network"));
    return libraries;
}

} // namespace

class TestLayering : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        m_documented = documentedPlan(&error);
        QVERIFY2(!m_documented.empty(), qPrintable(error));
        m_built = builtPlan(&error);
        QVERIFY2(!m_built.empty(), qPrintable(error));
    }

    void everyBuiltRoomIsDocumented()
    {
        for (const auto &[name, room] : m_built) {
            const auto it = m_documented.find(name);
            QVERIFY2(it != m_documented.end(), qPrintable(name + QStringLiteral(" is not in docs/architecture.md")));
            QCOMPARE(room.folder, it->second.folder);
            QVERIFY2(room.rooms == it->second.rooms,
                     qPrintable(QStringLiteral("%1 links %2, the plan says %3")
                                    .arg(name, room.rooms.join(QLatin1Char(' ')),
                                         it->second.rooms.join(QLatin1Char(' ')))));
            QVERIFY2(room.libraries == it->second.libraries,
                     qPrintable(QStringLiteral("%1 links %2, the plan says %3")
                                    .arg(name, room.libraries.join(QLatin1Char(' ')),
                                         it->second.libraries.join(QLatin1Char(' ')))));
        }
        for (const auto &[name, room] : m_documented) {
            // Rooms a build option leaves out (the desktop's, with BROKER_BUILD_UI=OFF) may be missing.
            if (m_built.find(name) == m_built.end())
                QVERIFY2(room.libraries.contains(QStringLiteral("Qt6::Widgets")),
                         qPrintable(name + QStringLiteral(" is documented but not built")));
        }
    }

    void planHasNoCycle()
    {
        for (const auto &[name, room] : m_documented) {
            for (const QString &link : room.rooms) {
                const QString dep = roomName(link);
                QVERIFY2(m_documented.find(dep) != m_documented.end(),
                         qPrintable(name + QStringLiteral(" uses an unknown room ") + dep));
                QVERIFY2(!dependencies(m_documented, dep).contains(name),
                         qPrintable(QStringLiteral("cycle: %1 -> %2 -> ... -> %1").arg(name, dep)));
            }
        }
    }

    void includesFollowThePlan_data()
    {
        QTest::addColumn<QString>("room");
        for (const auto &[name, room] : m_documented)
            QTest::addRow("%s", qPrintable(name)) << name;
    }

    void includesFollowThePlan()
    {
        QFETCH(QString, room);
        const Room &plan = m_documented.at(room);
        const QSet<QString> rooms = reachable(m_documented, room);
        // A room others link passes its headers on: they may name only what it links publicly.
        // A program's headers are its own.
        bool linkedByOthers = false;
        for (const auto &[other, links] : m_documented)
            for (const QString &dep : links.rooms)
                linkedByOthers = linkedByOthers || roomName(dep) == room;
        const QSet<QString> headerRooms = linkedByOthers ? reachable(m_documented, room, true) : rooms;
        const QSet<QString> libraries = librariesFor(m_documented, room);
        static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s*([<\"])([^>\"]+)[>\"]"),
                                                QRegularExpression::MultilineOption);
        const QDir folder(QStringLiteral(BROKER_SOURCE_DIR "/") + plan.folder);
        QVERIFY2(folder.exists(), qPrintable(plan.folder));
        QStringList violations;
        int files = 0;
        for (const QString &file : folder.entryList({QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files)) {
            ++files;
            const QString text = readFile(folder.filePath(file));
            const bool header = file.endsWith(QLatin1String(".h"));
            QRegularExpressionMatchIterator it = include.globalMatch(text);
            while (it.hasNext()) {
                const QRegularExpressionMatch m = it.next();
                const QString target = m.captured(2);
                const QString where = plan.folder + QLatin1Char('/') + file + QStringLiteral(": ") + target;
                const QString first = target.section(QLatin1Char('/'), 0, 0);
                const bool roomInclude = target.contains(QLatin1Char('/')) && m_documented.find(first) != m_documented.end();
                if (m.captured(1) == QLatin1String("<") && !roomInclude) {
                    const QString library = libraryOf(target);
                    if (!library.isEmpty() && !libraries.contains(library))
                        violations << where + QStringLiteral(" (needs ") + library + QLatin1Char(')');
                    continue;
                }
                if (target.contains(QLatin1String(".."))) {
                    violations << where + QStringLiteral(" (relative path out of the room)");
                } else if (!target.contains(QLatin1Char('/'))) {
                    if (!folder.exists(target) && !target.startsWith(QLatin1String("moc_")))
                        violations << where + QStringLiteral(" (not in the room's folder)");
                } else {
                    const QString other = target.section(QLatin1Char('/'), 0, 0);
                    if (m_documented.find(other) == m_documented.end())
                        violations << where + QStringLiteral(" (not a room)");
                    else if (!rooms.contains(other))
                        violations << where + QStringLiteral(" (%1 may not use %2)").arg(room, other);
                    else if (header && !headerRooms.contains(other))
                        violations << where + QStringLiteral(" (%1 links %2 privately: its headers may not name it)")
                                                  .arg(room, other);
                }
            }
        }
        QVERIFY2(files > 0, qPrintable(plan.folder));
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join(QLatin1Char('\n'))));
    }

    // The checker itself: an edge the plan forbids is found (so the test above can fail).
    void checkerFindsForbiddenEdges()
    {
        QString error;
        const Plan plan = parsePlan(QStringLiteral("low x -> | Qt6::Core\nmid y -> low\nhigh z -> mid | Qt6::Widgets\n"
                                                   "top w -> (high)\n"),
                                    &error);
        QVERIFY(error.isEmpty());
        QVERIFY(reachable(plan, QStringLiteral("high")).contains(QStringLiteral("low")));
        QVERIFY(reachable(plan, QStringLiteral("top")).contains(QStringLiteral("low")));
        QVERIFY(dependencies(plan, QStringLiteral("top")).contains(QStringLiteral("low")));
        QVERIFY(!reachable(plan, QStringLiteral("top"), true).contains(QStringLiteral("high")));
        QVERIFY(!reachable(plan, QStringLiteral("low")).contains(QStringLiteral("mid")));
        QVERIFY(!librariesFor(plan, QStringLiteral("mid")).contains(QStringLiteral("Qt6::Widgets")));
        QVERIFY(librariesFor(plan, QStringLiteral("high")).contains(QStringLiteral("Qt6::Gui")));
        QCOMPARE(libraryOf(QStringLiteral("QTcpSocket")), QStringLiteral("Qt6::Network"));
        QCOMPARE(libraryOf(QStringLiteral("QWidget")), QStringLiteral("Qt6::Widgets"));
        QCOMPARE(libraryOf(QStringLiteral("hiredis/read.h")), QStringLiteral("PkgConfig::hiredis"));
        QCOMPARE(libraryOf(QStringLiteral("memory")), QString());
    }

private:
    Plan m_documented;
    Plan m_built;
};

QTEST_APPLESS_MAIN(TestLayering)
#include "tst_layering.moc"
