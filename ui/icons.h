// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QIcon>

namespace Broker::Ui {

// A freedesktop theme icon by its standard name, falling back to BrokerDesk's own drawing in
// resources/icons/ui (<name>.svg, with PNG renderings for Qt builds without the SVG plugin), so
// that the sidebar and tool bars have icons on every desktop, themed or not.
QIcon themeIcon(const QString &name);

} // namespace Broker::Ui
