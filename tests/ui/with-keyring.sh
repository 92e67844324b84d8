#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a test (its command line) inside a D-Bus session of its own with an unlocked gnome-keyring
# (a Secret Service, as on a desktop), in a home of its own so that no real keyring is touched.
# Exits 77 (CTest: skipped) where dbus-run-session or gnome-keyring-daemon is missing or the
# keyring does not start.
set -eu
if ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
    echo "SKIP: dbus-run-session and gnome-keyring-daemon are needed (Debian: dbus, gnome-keyring)"
    exit 77
fi
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
HOME=$home XDG_DATA_HOME=$home/data XDG_RUNTIME_DIR=$home BROKER_TEST_KEYRING=1 \
    dbus-run-session -- sh -c '
        printf %s test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || {
            echo "SKIP: gnome-keyring-daemon did not start"; exit 77; }
        exec "$@"' sh "$@"
