// SPDX-License-Identifier: GPL-3.0-or-later
#include "icons.h"

#include <QFile>
#include <QImageReader>

namespace Broker::Ui {

QIcon themeIcon(const QString &name)
{
    QIcon fallback;
    const QString base = QStringLiteral(":/icons/ui/") + name;
    if (QImageReader::supportedImageFormats().contains("svg") && QFile::exists(base + QStringLiteral(".svg")))
        fallback.addFile(base + QStringLiteral(".svg"));
    for (const int size : {16, 24, 32}) {
        const QString png = base + QStringLiteral("-%1.png").arg(size);
        if (QFile::exists(png))
            fallback.addFile(png, QSize(size, size));
    }
    return QIcon::fromTheme(name, fallback);
}

} // namespace Broker::Ui
