#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the packages from a configured, built tree and checks them as a user would meet them:
#   cpack DEB and TGZ; lintian shows no errors; the desktop entry and the AppStream metainfo
#   validate; each archive holds the files of its package; the packages install with apt-get;
#   systemd-analyze accepts the unit; each program answers --version; the packaged brokerd starts
#   from the packaged configuration and answers /health/live; SIGTERM stops it with status 0.
# The packages are purged again at the end. Installing needs root or passwordless sudo; without
# either the check is skipped (exit 77).
#   check-packages.sh BUILD_DIR
set -eu
build=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/.." && pwd)
app_id=io.github.brokerdesk.BrokerDesk
packages="brokerdesk brokerd brokerctl"

if [ "$(id -u)" -eq 0 ]; then
    as_root=
elif sudo -n true 2>/dev/null; then
    as_root="sudo -n"
else
    echo "SKIP: installing the packages needs root or passwordless sudo"
    exit 77
fi

work=$(mktemp -d)
broker_pid=
cleanup() {
    [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null
    # shellcheck disable=SC2086
    $as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $packages >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
step() { printf '== %s\n' "$*"; }

step "cpack"
rm -rf "$build/packages"
(cd "$build" && cpack -G "DEB;TGZ") > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
ls -l "$build"/packages/*.deb "$build"/packages/*.tar.gz

step "lintian"
lintian --fail-on error "$build"/packages/*.deb

step "desktop-file-validate, appstreamcli validate"
desktop-file-validate "$source_dir/packaging/$app_id.desktop"
appstreamcli validate --no-net "$build/packaging/generated/$app_id.metainfo.xml"

step "archives hold what the packages hold"
for package in $packages; do
    dpkg-deb -c "$build"/packages/${package}_*.deb | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort > "$work/deb"
    tar tzf "$build"/packages/${package}-*.tar.gz | grep -v '/$' | sed 's|^\./||' | sort > "$work/tgz"
    diff -u "$work/deb" "$work/tgz"
done

step "apt-get install"
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall \
    "$build"/packages/brokerdesk_*.deb "$build"/packages/brokerd_*.deb "$build"/packages/brokerctl_*.deb

step "installed files"
for file in /usr/bin/brokerdesk /usr/bin/brokerd /usr/bin/brokerctl /etc/brokerd/message_broker.yaml \
    /etc/brokerd/users.yaml.example /lib/systemd/system/brokerd.service \
    /usr/share/applications/$app_id.desktop /usr/share/metainfo/$app_id.metainfo.xml \
    /usr/share/icons/hicolor/scalable/apps/$app_id.svg /usr/share/icons/hicolor/256x256/apps/$app_id.png \
    /usr/share/man/man1/brokerdesk.1.gz /usr/share/man/man1/brokerctl.1.gz /usr/share/man/man8/brokerd.8.gz; do
    [ -e "$file" ] || { echo "missing: $file"; exit 1; }
done
dpkg-query -W -f='${Conffiles}\n' brokerd | grep -q /etc/brokerd/message_broker.yaml
getent passwd brokerd >/dev/null || { echo "the brokerd system user was not created"; exit 1; }
[ "$(stat -c %U:%a /var/lib/brokerd)" = brokerd:750 ] || { echo "/var/lib/brokerd: $(stat -c %U:%a /var/lib/brokerd)"; exit 1; }

step "systemd-analyze verify"
systemd-analyze verify /lib/systemd/system/brokerd.service

step "--version"
for program in brokerdesk brokerd brokerctl; do
    version=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "/usr/bin/$program" --version 2>/dev/null)
    echo "$version"
    echo "$version" | grep -q "^$program [0-9]" || { echo "$program --version said: $version"; exit 1; }
done

step "the packaged brokerd with the packaged configuration"
printf 'users:\n  admin: {role: admin, api_key: package-check-admin-key-0123456789}\n' > "$work/users.yaml"
# The log files exist before brokerd starts: the background job opens its redirections only
# once it runs, and the first sed below may come before that.
: > "$work/brokerd.out"
: > "$work/brokerd.log"
/usr/bin/brokerd --config /etc/brokerd/message_broker.yaml --users "$work/users.yaml" --port 0 \
    > "$work/brokerd.out" 2> "$work/brokerd.log" &
broker_pid=$!
port=
tries=0
while [ -z "$port" ] && [ "$tries" -lt 200 ]; do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/brokerd.log")
    kill -0 "$broker_pid" 2>/dev/null || { cat "$work/brokerd.log"; exit 1; }
    tries=$((tries + 1))
    sleep 0.05
done
[ -n "$port" ] || { cat "$work/brokerd.log"; exit 1; }
live=$(curl -sf "http://127.0.0.1:$port/health/live")
echo "/health/live: $live"
echo "$live" | grep -q '"alive"'
kill -TERM "$broker_pid"
status=0
wait "$broker_pid" || status=$?
broker_pid=
[ "$status" -eq 0 ] || { echo "brokerd exited with $status after SIGTERM"; cat "$work/brokerd.log"; exit 1; }

step "all package checks passed"
