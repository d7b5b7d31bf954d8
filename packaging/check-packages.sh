#!/usr/bin/env bash
# Checks the built packages (make package): file lists and metadata with dpkg-deb and rpm,
# and installs the .deb into a throwaway root.
set -euo pipefail
deb=$1 rpm=$2
want="/etc/vulnkeeper/vulnkeeper.yaml
/usr/bin/vulnkeeper
/usr/lib/systemd/system/vulnkeeper-agent.service
/usr/lib/systemd/system/vulnkeeper-agent.timer
/usr/lib/systemd/system/vulnkeeper.service
/usr/share/doc/vulnkeeper/README.md"
fail() { echo "package check: $*" >&2; exit 1; }

got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}' | sort)
[ "$got" = "$want" ] || fail "$deb holds:
$got"
[ "$(dpkg-deb -f "$deb" Package)" = vulnkeeper ] || fail "$deb: wrong Package"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/vulnkeeper/vulnkeeper.yaml || fail "$deb: config not a conffile"

got=$(rpm -qlp "$rpm" 2>/dev/null | grep -vx /etc/vulnkeeper | sort)
[ "$got" = "$want" ] || fail "$rpm holds:
$got"
[ "$(rpm -qp --qf '%{NAME}' "$rpm" 2>/dev/null)" = vulnkeeper ] || fail "$rpm: wrong name"
rpm -qcp "$rpm" 2>/dev/null | grep -qx /etc/vulnkeeper/vulnkeeper.yaml || fail "$rpm: config not %config"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --force-script-chrootless --force-depends --log=/dev/null -i "$deb" >/dev/null
"$root/usr/bin/vulnkeeper" version >/dev/null || fail "installed binary does not run"
dpkg-query --root="$root" -W -f='${Status}' vulnkeeper | grep -qx 'install ok installed' || fail "not installed"
if command -v systemd-analyze >/dev/null; then
  # The installed units, pointed at the installed binary, must verify.
  units=$(mktemp -d)
  for u in vulnkeeper.service vulnkeeper-agent.service vulnkeeper-agent.timer; do
    sed "s#/usr/bin/vulnkeeper #$root/usr/bin/vulnkeeper #" "$root/usr/lib/systemd/system/$u" >"$units/$u"
  done
  systemd-analyze verify --man=no "$units"/* || fail "systemd-analyze verify"
  rm -rf "$units"
fi
echo "packages ok: $deb $rpm"
