// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QObject>

class QAction;
class QWidget;

namespace Broker::Ui {

// "Export definitions…" and "Import definitions…": the broker's queues with their options, its
// roles and its users (never keys) as one JSON file, the same document as GET/POST /definitions.
// An export asks the broker (a future: the GUI does not wait) and writes the file whole or not at
// all. An import reads the file, has the broker check it whole (a bad file changes nothing and is
// shown as an error), and shows what was done: queues created, conflicts with their differences,
// roles not imported and why; new users' keys are shown once, each in a key dialog. Dialogs open
// with open(), never exec(): snapshots keep arriving meanwhile.
class DefinitionsActions : public QObject
{
    Q_OBJECT
public:
    // `window` parents the dialogs and must outlive this object.
    DefinitionsActions(BrokerConnection &client, QWidget *window);

    QAction *exportAction() const { return m_export; }
    QAction *importAction() const { return m_import; }

    // What the actions do once a file is chosen.
    void exportTo(const QString &path);
    void importFrom(const QString &path);

    // A definitions file is small (names and options); anything larger is not one.
    static constexpr qint64 MaxFileBytes = 16 * 1024 * 1024;

Q_SIGNALS:
    void exported(const QString &path);
    void imported(const Broker::DefinitionsImport &summary);
    void failed(const QString &message);

private:
    void chooseFile(bool save);
    void showSummary(const DefinitionsImport &summary);
    void showError(const QString &title, const QString &message);

    BrokerConnection &m_client;
    QWidget *m_window;
    QAction *m_export;
    QAction *m_import;
};

// The summary of an import as text for a person, one section per kind of outcome.
QString describeImport(const DefinitionsImport &summary);

} // namespace Broker::Ui
