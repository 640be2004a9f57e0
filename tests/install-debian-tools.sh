#!/bin/sh
# Install what the tests take from Debian with apt, unless it is already there: Chromium for the browser tests, and
# Hugo for the benchmark's comparison with a static-site generator (scripts/hugo_anchor.py).
set -e
wanted=""
[ -x /usr/bin/chromium ] || wanted="$wanted chromium"
[ -x /usr/bin/hugo ] || wanted="$wanted hugo"
if [ -z "$wanted" ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  SUDO="sudo"
fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # a list of package names
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $wanted >/dev/null
