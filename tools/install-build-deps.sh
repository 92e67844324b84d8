#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what building and testing BrokerDesk needs on Debian 12 (bookworm). Safe to run again.
set -eu

# ninja-build: the test script's builds (tools/run-tests.sh); make builds as well.
# fonts-dejavu-core: readable text when the UI tests and --screenshots render offscreen.
# redis-server: the Redis store's tests start their own servers on free loopback ports.
# lintian, desktop-file-utils, appstream: the packaging checks (tests/packaging).
# libssl-dev: checking that a TLS key belongs to its certificate; openssl: the TLS tests make their
# certificates with it (tests/support/tlscertificates.h).
# qtkeychain-qt6-dev: the desktop keeps remote brokers' API keys in the keyring; dbus, gnome-keyring:
# its test runs a Secret Service of its own (tests/ui/with-keyring.sh).
PACKAGES="cmake g++ make ninja-build pkg-config ca-certificates
qt6-base-dev qt6-base-dev-tools libyaml-cpp-dev
qt6-httpserver-dev qt6-websockets-dev libreadline-dev qtkeychain-qt6-dev
fonts-dejavu-core
libhiredis-dev redis-server libssl-dev openssl
lintian desktop-file-utils appstream curl
dbus gnome-keyring"
# nodejs, npm: the OpenAPI lint (npx @redocly/cli, pinned in tools/openapi). Asked for only when
# npx is missing, so that a Node.js installed otherwise (NodeSource, nvm) is left alone.
command -v npx >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs npm"

missing=""
for package in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # word splitting is wanted: one argument per package
apt-get install -y -qq --no-install-recommends $missing
