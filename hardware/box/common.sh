# What the box's scripts share: their words, and where their builds are kept.
# Sourced, not run: `. "$(dirname "$0")/common.sh"`.
# shellcheck shell=bash

if [ -t 2 ]; then bold=$'\033[1m' red=$'\033[1;31m' plain=$'\033[0m'; else bold="" red="" plain=""; fi
say() { printf '%sbox:%s %s\n' "$bold" "$plain" "$*" >&2; }
fail() { printf '%sbox failed:%s %s\n' "$red" "$plain" "$*" >&2; exit 1; }

# shellcheck disable=SC2034 # used by the scripts that source this file
box_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The builds live outside the project: a kernel or an image is hundreds of megabytes.
# shellcheck disable=SC2034
box_cache="${TABLE_CONTROLLER_BOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/table-controller/box}"

# The box's architecture: amd64 for the everyday run; arm64, the Pi's own, to check the
# same steps once before a release (BOX_ARCH=arm64: its kernel is cross-built, its Debian
# made through qemu-user, and it boots slower). Each has its own builds in the cache.
# shellcheck disable=SC2034 # used by the scripts that source this file
case "${BOX_ARCH:-amd64}" in
    amd64)
        box_arch=amd64 machine_arch=x86_64 kernel_arch=x86_64 kernel_file=arch/x86/boot/bzImage
        console_tty=ttyS0 cube_tty=ttyS1 qemu=qemu-system-x86_64 qemu_package=qemu-system-x86
        ;;
    arm64)
        # The cube's line is the machine's own UART (a PL011, as the Pi's header's
        # ttyAMA0); the console is the virtio console, as QEMU's virt machine has one UART.
        box_arch=arm64 machine_arch=aarch64 kernel_arch=arm64 kernel_file=arch/arm64/boot/Image
        console_tty=hvc0 cube_tty=ttyAMA0 qemu=qemu-system-aarch64 qemu_package=qemu-system-arm
        ;;
    *) fail "BOX_ARCH=${BOX_ARCH}: the box is amd64 (the default) or arm64" ;;
esac
# A kernel or module for another architecture than this machine's is cross-compiled
# (Debian's gcc-aarch64-linux-gnu or gcc-x86-64-linux-gnu).
cross=""
[ "$(uname -m)" = "$machine_arch" ] || cross="$machine_arch-linux-gnu-"
# shellcheck disable=SC2034
cross_package="${cross:+gcc-${machine_arch//_/-}-linux-gnu}"

# Debian packages, installed through apt-get when any is missing (as scripts/setup.sh
# does for the project's other system packages).
need_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'ok installed' ||
            missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v apt-get >/dev/null 2>&1 ||
        fail "this machine has no apt-get: install these by hand, then run again: ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 ||
            fail "installing system packages needs root: run as root, or install: ${missing[*]}"
        sudo=(sudo)
    fi
    say "installing system packages: ${missing[*]}"
    if [ ! -f /tmp/.table-controller-apt-updated ]; then
        "${sudo[@]}" apt-get update -qq && touch /tmp/.table-controller-apt-updated
    fi
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null ||
        fail "could not install ${missing[*]}: install them by hand, then run again"
}

# A short hash of the given files' contents and any extra words: the cache's key.
inputs_hash() {
    local words="$1"
    shift
    { printf '%s\n' "$words"; cat "$@"; } | sha256sum | cut -c1-16
}
