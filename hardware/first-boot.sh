#!/usr/bin/env bash
# Makes a fresh Raspberry Pi OS Lite (64-bit) into a table of an event's fleet, in one go:
#   sudo table-controller/hardware/first-boot.sh            (from a copy of the project)
#   hardware/first-boot.sh --dry-run                        (says what it would do; no root)
# It installs the system packages and the project (as `make setup-pi` does) in
# /opt/table-controller, writes /etc/table-controller/table.toml from the example with
# [fleet] on, and installs, enables and starts the table's service, which then looks for
# the director and shows its join code. Run it again at any time: what is done already is
# left as it is (the table's file is never overwritten). docs/fleet.md tells the story.
#
# The layout hardware/table-controller-fleet.service and an update (fleet/update.py)
# expect: the project in /opt/table-controller with its .venv, the release that runs in
# releases/VERSION named by the link current, all owned by the service's user (an update
# writes there); what the table is given and writes in /var/lib/table-controller.
#
# ROOT=DIR puts every file under DIR instead of / and leaves the machine itself alone (no
# packages, user or systemd): the tests install into a folder that way. PYTHON names the
# Python that installs the release there (default: the project's own environment's).
set -euo pipefail

if [ -t 1 ]; then bold=$'\033[1m' red=$'\033[1;31m' plain=$'\033[0m'; else bold="" red="" plain=""; fi
say() { printf '%sfirst-boot:%s %s\n' "$bold" "$plain" "$*"; }
fail() { printf '%sfirst-boot failed:%s %s\n' "$red" "$plain" "$*" >&2; exit 1; }
shown() { local out; printf -v out '%q ' "$@"; printf '%s' "${out% }"; }

dry=false
for arg in "$@"; do
    case "$arg" in
        --dry-run) dry=true ;;
        -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) fail "no option '$arg': use --dry-run, or none (--help says more)" ;;
    esac
done

root="${ROOT:-/}"
root="${root%/}"  # "" for the machine's own root, so "$root/etc" is /etc
src="$(cd "$(dirname "$0")/.." && pwd)"
user="euchre"  # the service's user: not root, in the groups of the pins, camera and cube
opt="$root/opt/table-controller"
state="/var/lib/table-controller"  # systemd makes it for the service (StateDirectory)
etc="$root/etc/table-controller"
config="$etc/table.toml"
unit="$root/etc/systemd/system/table-controller.service"
python="${PYTHON:-$opt/.venv/bin/python}"

if [ ! -f "$src/pyproject.toml" ] || [ ! -f "$src/examples/table.toml" ]; then
    fail "$src is not the project: run the script from its place in the project (hardware/)"
fi
version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$src/table_controller/__init__.py")"
[ -n "$version" ] || fail "cannot read the project's version in $src/table_controller/__init__.py"
if ! $dry && [ -z "$root" ] && [ "$(id -u)" != 0 ]; then
    fail "it installs system packages and a service: run it with sudo (or try --dry-run)"
fi

# A change to the files under ROOT: done, or said in a dry run.
run() {
    if $dry; then say "would run: $(shown "$@")"; else "$@"; fi
}
# A change to the machine itself (packages, users, systemd): only on its own root.
system() {
    if $dry; then say "would run: $(shown "$@")"
    elif [ -n "$root" ]; then say "left out (ROOT=$root is not this machine's root): $(shown "$@")"
    else "$@"
    fi
}

# --- 1. the project, copied to /opt/table-controller --------------------------------------
if [ "$src" = "$opt" ]; then
    say "the project is already in $opt"
else
    say "copying the project (version $version) to $opt"
    run mkdir -p "$opt"
    if $dry; then
        say "would copy $src to $opt (less .venv, .git, test-artifacts and caches)"
    else
        tar -C "$src" --exclude=./.venv --exclude=./.git --exclude=./test-artifacts \
            --exclude=./build --exclude=./dist --exclude=./table.toml --exclude='*.egg-info' --exclude='__pycache__' \
            --exclude='*.sqlite' -cf - . | tar -C "$opt" -xf -
    fi
    # Readable by everyone on the machine, whatever modes it was copied with: a copy from
    # a private folder (a clone under umask 077, a mktemp folder) or a USB stick made
    # /opt/table-controller 0700, and only root could then run the table's commands.
    # It holds no secret: the table's file and its state live in /etc and /var/lib.
    run chmod -R u+rwX,go+rX,go-w "$opt"
fi

# --- 2. the system packages and the Python packages (make setup-pi) -----------------------
say "installing the system packages and the table's Python packages (minutes, the first time)"
system bash "$opt/scripts/setup.sh" "$opt/.venv" pi

# --- 3. the release that runs: releases/VERSION, and current pointing at it ----------------
release="$opt/releases/$version"
if [ -d "$release" ]; then
    say "release $version is installed already in $release"
else
    say "installing release $version in $release"
    if ! $dry && [ ! -x "$python" ]; then
        fail "no Python at $python to install the release with (step 2 makes it; with ROOT, set PYTHON)"
    fi
    run rm -rf "$release.partial"
    run "$python" -m pip install --quiet --no-deps --no-build-isolation --no-index \
        --target "$release.partial" "$opt"
    run mv "$release.partial" "$release"
fi
if [ -L "$opt/current" ]; then
    say "current runs $(readlink "$opt/current") (kept: an update may have moved it)"
else
    run ln -s "releases/$version" "$opt/current"
fi

# --- 4. the service's user, in the groups of the pins, the camera and the cube ------------
if id "$user" >/dev/null 2>&1; then
    say "the user $user is there already"
else
    system useradd --system --user-group --home-dir "$state" --no-create-home \
        --shell /usr/sbin/nologin --comment "Euchre table" "$user"
fi
for group in gpio video dialout; do
    if getent group "$group" >/dev/null; then
        id -nG "$user" 2>/dev/null | grep -qw "$group" || system usermod -aG "$group" "$user"
    else
        say "this machine has no group $group (a Raspberry Pi has): skipped"
    fi
done
# An update, run by the service as its user, adds releases and moves current.
system chown -R "$user:$user" "$opt"

# --- 5. the table's own file: the example, in fleet mode ----------------------------------
# The director gives a fleet's table its name, rules, players and broker, so the file
# keeps only what is the table's own (pins, camera, calibration, cube, page): the
# example less [table] name and log, [rules], [players], and [feed]'s broker and login.
fleet_block="
[fleet]                     # a table of an event's fleet (docs/fleet.md): it joins the director
folder = \"$state/fleet\"   # what the director gives it and its event log: the table's own"
fleet_example() {
    awk -v state="$state" '
        /^\[/ { section = $1 }
        section == "[rules]" || section == "[rules.options]" || section == "[players]" { next }
        section == "[table]" && /^(name|log) *=/ { next }
        section == "[feed]" && /^[a-z_]+ *=/ && !/^(heartbeat|public_delay|tls_ca) *=/ { next }
        section == "[camera]" && /^calibration *=/ {
            sub(/"calibration\/table.json"/, "\"" state "/calibration/table.json\"")
        }
        section == "[web]" && /^host *=/ {
            $0 = "host = \"0.0.0.0\"            # every machine on the network: the join code from a phone"
        }
        { print }
    ' "$src/examples/table.toml"
    printf '%s\n' "$fleet_block"
}
if [ -f "$config" ]; then
    if grep -q '^\[fleet\]' "$config"; then
        say "$config is there already, in fleet mode: kept as it is"
    else
        say "$config is there already, not in fleet mode: kept as it is (the table runs on its own; docs/fleet.md says how to make it a fleet's table)"
    fi
else
    say "writing $config from the example, in fleet mode"
    text="$(fleet_example)"
    for want in "folder = \"$state/fleet\"" "calibration = \"$state/calibration/table.json\"" \
        'host = "0.0.0.0"'; do
        [[ "$text" == *"$want"* ]] || fail "the example table.toml has changed ('$want' not made): update this script"
    done
    if $dry; then
        say "would write $config: the example less what the director gives (name, rules, players, broker), its calibration in $state, the page open to the network ([web] host = \"0.0.0.0\"), and:$fleet_block"
    else
        mkdir -p "$etc"
        printf '%s\n' "$text" >"$config.partial"
        chmod 644 "$config.partial"
        mv "$config.partial" "$config"
    fi
fi

# --- 6. the service: installed, enabled, started ------------------------------------------
if cmp -s "$src/hardware/table-controller-fleet.service" "$unit"; then
    say "the service is installed already: $unit"
else
    say "installing the service: $unit"
    run install -D -m 644 "$src/hardware/table-controller-fleet.service" "$unit"
    unit_changed=true
fi
system systemctl daemon-reload
# A service already running with the unit it had: started again with the new one.
if ${unit_changed:-false}; then system systemctl try-restart table-controller; fi
system systemctl enable --now table-controller

if $dry; then
    say "dry run: nothing was changed"
else
    say "done. The table looks for the director and shows its join code on its seat lights,"
    say "its cube and its page (https://$(hostname).local:8080/: a phone warns once, compare the"
    say "fingerprint the journal shows); the director approves it on the dashboard's Fleet page."
    say "Follow it with: journalctl -u table-controller -f"
fi
