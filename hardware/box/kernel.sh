#!/usr/bin/env bash
# Builds the box's kernel: Debian's bookworm kernel source (linux-source-6.1), configured
# from `make tinyconfig`, the kernel's kvm_guest.config, kernel.config beside this script
# (the simulated GPIO chip, V4L2, systemd's needs) and the architecture's own file
# (kernel-amd64.config, kernel-arm64.config). Debian's own amd64 kernels lack
# CONFIG_GPIO_SIM, so the box needs one of its own. BOX_ARCH=arm64 builds the Pi's
# architecture's, cross-compiled (common.sh).
#   hardware/box/kernel.sh          prints the built kernel's folder (built if need be)
#   hardware/box/kernel.sh --path   prints the folder's name alone, building nothing
# The folder, in the box's cache (README.md), holds vmlinuz (the kernel QEMU boots),
# config and the build tree; it is named by a hash of the architecture, the config files,
# this script and the source's version, so a change to any of them builds anew and an
# unchanged one is reused in a second.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

fragments=("$box_dir/kernel.config" "$box_dir/kernel-$box_arch.config")
tarball=/usr/src/linux-source-6.1.tar.xz
jobs="${BOX_JOBS:-2}"

case "${1:-}" in
    "" | --path) ;;
    *) fail "no option '$1': use --path, or none" ;;
esac
need_packages build-essential flex bison bc xz-utils cpio kmod libelf-dev libssl-dev linux-source-6.1 \
    ${cross_package:+"$cross_package"}
[ -f "$tarball" ] || fail "no $tarball: reinstall the package linux-source-6.1"

version="$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || echo unknown)"
key="$(inputs_hash "linux-source-6.1 $version $box_arch" "${fragments[@]}" "$0" "$box_dir/common.sh")"
out="$box_cache/kernel-$key"
if [ "${1:-}" = --path ]; then
    echo "$out"
    exit 0
fi
mkdir -p "$box_cache"
# One build at a time: a second run waits for the first and then uses its kernel.
exec 9>"$out.lock"
flock 9
if [ -f "$out/vmlinuz" ]; then
    echo "$out"
    exit 0
fi

# Built in its own folder, where it stays: the build tree is kept for the modules built
# against it later (v4l2loopback), and a kernel's tree does not move. vmlinuz is copied
# last, so a folder without it is an unfinished build: one whose source was unpacked
# and configured goes on where it stopped (make builds only what is missing), any other
# is started again from scratch.
tree="$out/linux-source-6.1"
if [ ! -f "$out/.unpacked" ]; then
    rm -rf "$out"
    mkdir -p "$out"
    say "unpacking $tarball ($version) into $out"
    tar -C "$out" -xf "$tarball"
    [ -d "$tree" ] || fail "the source did not unpack to $tree: is linux-source-6.1 whole?"
    touch "$out/.unpacked"
fi

export ARCH="$kernel_arch" CROSS_COMPILE="$cross"  # make and merge_config.sh read both
kmake() { nice -n 10 make -C "$tree" "$@"; }
log="$out/build.log"
started=$SECONDS
if [ ! -f "$out/.configured" ]; then
    say "configuring for $box_arch: tinyconfig + kvm_guest.config + kernel.config + kernel-$box_arch.config"
    {
        kmake tinyconfig
        (cd "$tree" && scripts/kconfig/merge_config.sh -m .config \
            kernel/configs/kvm_guest.config "${fragments[@]}")
        kmake olddefconfig
    } >"$log" 2>&1 || { tail -n 30 "$log" >&2; fail "configuring the kernel failed (above; all of it in $log)"; }

    # Every line of the fragment must be in the result: a symbol that a dependency turned off
    # would otherwise pass unnoticed until a device is missing in the box.
    missing=()
    while IFS= read -r line; do
        case "$line" in '' | '#'*) continue ;; esac
        grep -qxF "$line" "$tree/.config" || missing+=("$line")
    done < <(cat "${fragments[@]}")
    if [ ${#missing[@]} -gt 0 ]; then
        fail "kernel.config or kernel-$box_arch.config asks for what the kernel did not take (a dependency missing?): ${missing[*]}"
    fi
    touch "$out/.configured"
else
    say "going on with the unfinished build in $out"
fi

say "building the $box_arch kernel with make -j$jobs under nice (minutes; the log: $log)"
kmake -j"$jobs" "$(basename "$kernel_file")" modules >>"$log" 2>&1 ||
    { tail -n 40 "$log" >&2; fail "building the kernel failed (above; all of it in $log)"; }
kmake INSTALL_MOD_PATH="$out/modules" modules_install >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; fail "installing the kernel's modules failed (above; all in $log)"; }
cp "$tree/.config" "$out/config"
kmake -s kernelrelease >"$out/release"
cp "$tree/$kernel_file" "$out/vmlinuz"
say "built kernel $(cat "$out/release") in $((SECONDS - started)) s"
echo "$out"
