#!/usr/bin/env bash
# Sets up a fresh Debian or Raspberry Pi OS machine for the table controller:
# the system packages it needs, a virtual environment, and the Python packages.
#   scripts/setup.sh [VENV] [EXTRA]
# EXTRA: core (the package alone: what `make demo` runs), feed, pi (a table on a Raspberry
# Pi), print, director, or test (every extra and the test tools: `make test`); see
# pyproject.toml's extras and README's "Installing". Each adds to what is installed.
set -euo pipefail
venv="$(realpath -m "${1:-.venv}")"  # before the cd below
extra="${2:-core}"
cd "$(dirname "$0")/.."  # the checkout: pyproject.toml and constraints.txt

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31msetup failed:\033[0m %s\n' "$*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else fail "installing system packages needs root: run 'sudo make ...' or install: ${*: -1}"
    fi
}

apt_install() {
    command -v apt-get >/dev/null 2>&1 ||
        fail "this machine has no apt-get; install these by hand, then run make again: $*"
    say "installing system packages: $*"
    if [ ! -f /tmp/.table-controller-apt-updated ]; then
        as_root apt-get update -qq && touch /tmp/.table-controller-apt-updated
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

case "$extra" in
    core | feed | pi | print | director | test) ;;
    *) fail "no set of packages is called '$extra': use core, feed, pi, print, director or test" ;;
esac
wants() { [ "$extra" = test ] || [[ " $* " == *" $extra "* ]]; }  # test wants everything

python=python3
command -v "$python" >/dev/null 2>&1 || apt_install python3
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    fail "Python 3.11 or newer is needed; this machine has $("$python" --version 2>&1)"
"$python" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv python3-pip
# pyzbar (the [pi] extra) reads QR codes through the system's zbar library.
if wants pi &&
    ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q 'libzbar\.so\.0'; then
    apt_install libzbar0
fi
# The director's broker; the feed is tested against a real one too.
if wants director; then [ -x /usr/sbin/mosquitto ] || apt_install mosquitto; fi
# The director's PDF results (WeasyPrint) lay text out with the system's Pango, in a font
# that has the suits' symbols (DejaVu).
if wants director; then
    { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q 'libpangoft2-1\.0\.so\.0' ||
        apt_install libpango-1.0-0 libpangoft2-1.0-0
    [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || apt_install fonts-dejavu-core
fi
if wants; then  # the tests alone
    # The live table page is tested in Debian's chromium, headless (Playwright drives it).
    [ -x /usr/bin/chromium ] || apt_install chromium
    # The director's store on PostgreSQL is tested against a real server the tests start.
    compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || apt_install postgresql
    # The fleet's tests put tables in network namespaces of their own (tests/netns.py).
    command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || apt_install iproute2
    # hardware/first-boot.sh is checked with shellcheck.
    [ -x /usr/bin/shellcheck ] || apt_install shellcheck
    # The systemd units in hardware/ are checked with systemd-analyze verify.
    [ -x /usr/bin/systemd-analyze ] || apt_install systemd
fi

# The bots' double-dummy solver is compiled at install (setup.py; table_controller/bots/_solver.c)
# with the system's C compiler and Python's headers; without them the install still works
# and the bots fall back to the same solver in pure Python, many times slower.
if ! command -v cc >/dev/null 2>&1 ||
    ! "$python" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    if command -v apt-get >/dev/null 2>&1; then
        apt_install gcc libc6-dev python3-dev
    else
        say "no C compiler or Python headers: the bots' solver will run in pure Python (slower)"
    fi
fi

# On a Raspberry Pi the camera library (picamera2) comes from Raspberry Pi OS, not PyPI:
# install it there and let the virtual environment see the system's packages.
venv_flags=()
if grep -qi "raspberry pi" /proc/device-tree/model 2>/dev/null; then
    "$python" -c 'import picamera2' 2>/dev/null || apt_install python3-picamera2
    # gpiozero drives the pins through lgpio (the only pin library that runs on a Pi 5).
    "$python" -c 'import lgpio' 2>/dev/null || apt_install python3-lgpio
    venv_flags=(--system-site-packages)
fi

if [ ! -x "$venv/bin/python" ]; then
    say "creating the virtual environment in $venv"
    "$python" -m venv "${venv_flags[@]}" "$venv" ||
        fail "could not create $venv; remove it and run make again"
fi
if [ "$extra" = core ]; then target=.; else target=".[$extra]"; fi
say "installing the Python packages ($extra; this takes a minute the first time)"
log="$venv/setup.log"
# pip's and the build's chatter goes to the log; it is shown only if something fails.
if ! "$venv/bin/python" -m pip install --upgrade pip >"$log" 2>&1; then
    cat "$log" >&2
    fail "could not upgrade pip in $venv (above; also in $log): check the network, then run make again"
fi
# setuptools is not upgraded by pip; the venv's own copy has published vulnerabilities.
if ! "$venv/bin/python" -m pip install --upgrade -c constraints.txt setuptools >>"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "could not upgrade setuptools in $venv (above; all of it in $log): check the network, then run make again"
fi
# constraints.txt: the exact versions the tests passed with, so every machine gets them.
if ! "$venv/bin/python" -m pip install -c constraints.txt -e "$target" >>"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "could not install the Python packages (above; all of it in $log): fix that, then run make again"
fi
# The package's own bytecode, compiled once here: where Python is told to write none as
# it runs (PYTHONDONTWRITEBYTECODE), every command would compile each module it imports.
"$venv/bin/python" -m compileall -q table_controller firmware >>"$log" 2>&1 || true
say "ready"
