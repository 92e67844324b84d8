#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Starts BrokerDesk from a build tree: the desktop app where there is a display; otherwise says
# so and starts the headless broker, brokerd, with the example configuration.
set -eu
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$build/app/brokerdesk" "$@"
fi
echo "No graphical display here (DISPLAY and WAYLAND_DISPLAY are not set): the desktop app cannot open."
echo "Starting the headless broker instead: $build/app/brokerd --config config/message_broker.yaml"
[ -f config/users.yaml ] || cp config/users.yaml.example config/users.yaml
exec "$build/app/brokerd" --config config/message_broker.yaml
