#!/usr/bin/env bash
# Builds v4l2loopback, the kernel module whose device stands in for the Pi's USB camera in
# the box (camera.service loads it at every boot, camera-feed.py feeds it), for the box's
# own kernel (kernel.sh): out of tree, from Debian's v4l2loopback-dkms source (fetched
# with `apt-get download`, dkms itself is not needed), against the kernel's kept build
# tree and its Module.symvers.
#   hardware/box/v4l2loopback.sh          prints the module's folder (built if need be)
#   hardware/box/v4l2loopback.sh --path   prints the folder's name alone, building nothing
# The folder, in the box's cache (README.md), holds v4l2loopback.ko, release (the kernel
# release it is for) and build.log; it is named by a hash of the kernel's folder, the
# source package's version and this script, so a new kernel or source builds anew.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

case "${1:-}" in
    "" | --path) ;;
    *) fail "no option '$1': use --path, or none" ;;
esac
kernel="$(bash "$box_dir/kernel.sh" --path)" || fail "could not name the box's kernel (kernel.sh --path)"
version="$(apt-cache show --no-all-versions v4l2loopback-dkms 2>/dev/null | sed -n 's/^Version: //p' | head -1)"
[ -n "$version" ] ||
    fail "this machine's apt sources have no v4l2loopback-dkms (Debian's main has it): run apt-get update, or add Debian's main"
key="$(inputs_hash "$(basename "$kernel") v4l2loopback-dkms $version" "$0" "$box_dir/common.sh")"
out="$box_cache/v4l2loopback-$key"
if [ "${1:-}" = --path ]; then
    echo "$out"
    exit 0
fi
tree="$kernel/linux-source-6.1"
if [ ! -f "$kernel/vmlinuz" ] || [ ! -f "$tree/Module.symvers" ]; then
    fail "the box's kernel is not built yet (no $kernel/vmlinuz and its build tree): run hardware/box/kernel.sh first"
fi
for option in CONFIG_MODULES CONFIG_VIDEO_DEV; do
    grep -qx "$option=y" "$kernel/config" ||
        fail "the box's kernel was built without $option, which v4l2loopback needs: see kernel.config"
done
need_packages make gcc ${cross_package:+"$cross_package"}
mkdir -p "$box_cache"
exec 9>"$out.lock"
flock 9
if [ -f "$out/v4l2loopback.ko" ]; then
    echo "$out"
    exit 0
fi

rm -rf "$out"
mkdir -p "$out/deb"
say "fetching Debian's v4l2loopback-dkms $version (its source) into $out"
(cd "$out/deb" && apt-get download "v4l2loopback-dkms=$version" >"$out/build.log" 2>&1) ||
    fail "could not download v4l2loopback-dkms $version ($out/build.log says why): check the network and apt's sources"
dpkg-deb -x "$out"/deb/v4l2loopback-dkms_*.deb "$out/deb/x" ||
    fail "the downloaded v4l2loopback-dkms package would not unpack: remove $out and run again"
src="$(find "$out/deb/x/usr/src" -maxdepth 1 -name 'v4l2loopback-*' -type d | head -1)"
if [ -z "$src" ] || [ ! -f "$src/v4l2loopback.c" ]; then
    fail "v4l2loopback-dkms $version holds no source under /usr/src: Debian's package has changed"
fi
mv "$src" "$out/src"
rm -rf "$out/deb"

say "building v4l2loopback for the box's kernel $(cat "$kernel/release")"
# Out of tree (M=): the kernel's tree is only read; what is built stays in $out/src.
if ! nice -n 10 make -C "$tree" ARCH="$kernel_arch" CROSS_COMPILE="$cross" M="$out/src" modules >>"$out/build.log" 2>&1; then
    tail -n 15 "$out/build.log" >&2
    fail "v4l2loopback did not build against the box's kernel (above; all of it in $out/build.log)"
fi
release="$(modinfo -F vermagic "$out/src/v4l2loopback.ko" 2>/dev/null | cut -d' ' -f1)"
[ "$release" = "$(cat "$kernel/release")" ] ||
    fail "the module was built for kernel '$release', not the box's $(cat "$kernel/release"): remove $out and run again"
echo "$release" >"$out/release"
echo "$version" >"$out/version"
cp "$out/src/v4l2loopback.ko" "$out/v4l2loopback.ko.part"
mv "$out/v4l2loopback.ko.part" "$out/v4l2loopback.ko"  # last: a folder without it is unfinished
say "v4l2loopback $version for the box's kernel: $out/v4l2loopback.ko"
echo "$out"
