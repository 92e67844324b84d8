#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Starts BrokerDesk from a build tree: the desktop app where there is a display; otherwise says
# so and starts the headless broker, brokerd, journaled like the desktop. Arguments go to the
# program either way (tools/start.sh --port 8081). Nothing is written into the source tree: the
# headless broker's configuration and users live in $XDG_CONFIG_HOME/brokerd (~/.config/brokerd),
# its journal in $XDG_DATA_HOME/brokerd (~/.local/share/brokerd).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$build/app/brokerdesk" "$@"
fi

config_dir=${XDG_CONFIG_HOME:-$HOME/.config}/brokerd
data_dir=${XDG_DATA_HOME:-$HOME/.local/share}/brokerd
mkdir -p "$config_dir" "$data_dir"
config=$config_dir/message_broker.yaml
users=$config_dir/users.yaml
if [ ! -f "$config" ]; then
    # The documented defaults, with the journal on and kept in the data folder.
    sed -e 's|^\(      enabled:\) false\( *# keep queued messages across restarts\)|\1 true \2|' \
        -e "s|^\(      path:\) \"\"\( *# empty: \"journal\" next to the users file\)|\1 \"$data_dir/journal\"\2|" \
        "$root/config/message_broker.yaml" > "$config"
fi
if [ ! -f "$users" ]; then
    # gCore's example users; their placeholder keys are replaced at start and printed once.
    (umask 077 && cp "$root/config/users.yaml.example" "$users")
fi
echo "No graphical display here (DISPLAY and WAYLAND_DISPLAY are not set): the desktop app cannot open."
echo "Starting the headless broker instead: $build/app/brokerd --config $config --users $users $*"
echo "Queues are journaled to $data_dir/journal; Ctrl+C stops the broker."
exec "$build/app/brokerd" --config "$config" --users "$users" "$@"
