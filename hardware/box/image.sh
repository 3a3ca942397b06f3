#!/usr/bin/env bash
# Builds the box's disk: Debian bookworm (amd64, or arm64 with BOX_ARCH=arm64: common.sh)
# made with mmdebstrap from this machine's own apt sources, shaped like a fresh Raspberry
# Pi OS Lite after Raspberry Pi Imager: systemd as init, the user pi (sudo without a
# password, in the Pi's groups, gpio among them), Python 3 with venv and pip, ssh, the
# network by DHCP, a login on the serial console. The box's kernel (kernel.sh) and its modules are put in /lib/modules.
#   hardware/box/image.sh          prints the image's folder (built if need be)
#   hardware/box/image.sh --path   prints the folder's name alone, building nothing
# The folder, in the box's cache (README.md), holds root.img (a raw ext4 file system, the
# disk /dev/vda), the ssh key the host logs in with (key, key.pub), and kernel (the
# kernel's folder). It is named by a hash of this script, the kernel's folder name and
# the apt sources, so a change to any of them builds anew. Another architecture than this
# machine's is made through qemu-user (qemu-user-static, registered with binfmt_misc).
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

size="${BOX_IMAGE_SIZE:-6G}"  # sparse: only what is written takes room
user=pi
hostname=raspberrypi
# A fresh Raspberry Pi OS Lite's Python and tools, less the Pi's own (raspi-config,
# picamera2, firmware): what first-boot.sh and scripts/setup.sh then find.
packages=(
    systemd systemd-sysv udev dbus sudo openssh-server ca-certificates
    python3 python3-venv python3-pip make
    iproute2 iputils-ping kmod procps less nano curl
)
# What scripts/setup.sh's `pi` set installs through apt-get on a machine that is not a Pi
# (the box: no python3-picamera2 or python3-lgpio, which only a Pi's setup installs):
# zbar for pyzbar, the C compiler and Python's headers for the bots' solver. Baked in so
# that first-boot.sh finds them installed and its apt-get has nothing to do: under
# emulation, apt-get update and the installs took most of the box's run.
baked=(libzbar0 gcc libc6-dev python3-dev)

case "${1:-}" in
    "" | --path) ;;
    *) fail "no option '$1': use --path, or none" ;;
esac
need_packages mmdebstrap e2fsprogs openssh-client qemu-utils
foreign=()
if [ "$(uname -m)" != "$machine_arch" ]; then
    # mmdebstrap runs the new root's programs (maintainer scripts) through qemu-user.
    need_packages qemu-user-static binfmt-support arch-test
    binfmt=/proc/sys/fs/binfmt_misc
    [ -f "$binfmt/status" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || true
    [ -f "$binfmt/qemu-$machine_arch" ] || update-binfmts --enable "qemu-$machine_arch" >/dev/null 2>&1 || true
    grep -qx enabled "$binfmt/qemu-$machine_arch" 2>/dev/null ||
        fail "this machine cannot run $box_arch programs (no qemu-$machine_arch in $binfmt): run update-binfmts --enable qemu-$machine_arch as root, then again"
    foreign=(--architectures="$box_arch")
fi
kernel="$(bash "$box_dir/kernel.sh" --path)"  # built below, after Debian

# The machine's own apt sources: Debian's entries only (a .sources or .list file naming
# bookworm), so the box installs what this machine would.
sources=()
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] && grep -qs 'bookworm' "$file" && grep -qsi 'debian' "$file" && sources+=("$file")
done
[ ${#sources[@]} -gt 0 ] ||
    fail "no Debian bookworm entry in /etc/apt/sources.list{,.d}: add one (the box is bookworm)"

key="$(inputs_hash "$box_arch $(basename "$kernel") $size ${packages[*]} ${baked[*]}" "$0" "$box_dir/common.sh" "${sources[@]}")"
out="$box_cache/image-$key"
if [ "${1:-}" = --path ]; then
    echo "$out"
    exit 0
fi
mkdir -p "$box_cache"
exec 9>"$out.lock"  # one build at a time: a second run waits, then uses the first's
flock 9
if [ -f "$out/root.img" ]; then
    echo "$out"
    exit 0
fi

started=$SECONDS
tree="$out/tree"
log="$out/build.log"

# The customize hooks run on the host, with the new root as $1.
setup_root() {
    local root="$1"
    echo "$hostname" >"$root/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
        "$hostname" >"$root/etc/hosts"
    printf '/dev/vda\t/\text4\tdefaults,noatime\t0\t1\n' >"$root/etc/fstab"
    # The groups of a Pi's first user; gpio, i2c and spi are the Pi's own, which Debian
    # lacks (first-boot.sh puts the table's user in gpio, video and dialout).
    local groups="adm dialout cdrom sudo audio video plugdev users input render netdev gpio i2c spi"
    local group
    for group in $groups; do chroot "$root" groupadd --system --force "$group"; done
    # The user Raspberry Pi Imager makes: sudo without a password, in those groups.
    chroot "$root" useradd --create-home --shell /bin/bash --groups "$(echo "$groups" | tr ' ' ,)" "$user"
    chroot "$root" passwd --delete "$user" >/dev/null
    echo "$user ALL=(ALL) NOPASSWD: ALL" >"$root/etc/sudoers.d/010_pi-nopasswd"
    chmod 440 "$root/etc/sudoers.d/010_pi-nopasswd"
    install -d -m 700 -o 1000 -g 1000 "$root/home/$user/.ssh"
    install -m 600 -o 1000 -g 1000 "$out/key.pub" "$root/home/$user/.ssh/authorized_keys"
    # The serial console logs pi in, as a Pi with autologin set in Imager does on its screen.
    mkdir -p "$root/etc/systemd/system/serial-getty@$console_tty.service.d"
    # shellcheck disable=SC2016 # $TERM is for systemd to expand
    printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin %s --keep-baud 115200,57600,38400,9600 %%I $TERM\n' \
        "$user" >"$root/etc/systemd/system/serial-getty@$console_tty.service.d/autologin.conf"
    # The network: QEMU's user network answers DHCP and DNS (10.0.2.3).
    printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n' >"$root/etc/systemd/network/20-wired.network"
    chroot "$root" systemctl enable systemd-networkd.service >/dev/null 2>&1
    rm -f "$root/etc/resolv.conf"
    echo "nameserver 10.0.2.3" >"$root/etc/resolv.conf"
    # Each box gets its own ssh host keys at its first boot, as a Pi does.
    rm -f "$root"/etc/ssh/ssh_host_*
    printf '[Unit]\nDescription=ssh host keys\nBefore=ssh.service\nConditionPathExists=!/etc/ssh/ssh_host_ed25519_key\n\n[Service]\nType=oneshot\nExecStart=/usr/bin/ssh-keygen -A\n\n[Install]\nWantedBy=multi-user.target\n' \
        >"$root/etc/systemd/system/ssh-host-keys.service"
    chroot "$root" systemctl enable ssh-host-keys.service >/dev/null 2>&1
    : >"$root/etc/machine-id"  # made at the first boot
    # ... which must not stop to ask for a locale and a root password on the console, as
    # systemd-firstboot would: Raspberry Pi Imager has set those already.
    ln -sf /dev/null "$root/etc/systemd/system/systemd-firstboot.service"
    # systemd's 50-pid-max.conf asks for 4194304, more than a tinyconfig kernel allows
    # (CONFIG_BASE_FULL off: 32768 at most), and systemd-sysctl.service failed at every
    # boot. The same name in /etc overrides it, with the kernel's own limit.
    printf '# The box kernel (tinyconfig, CONFIG_BASE_FULL off) allows no more.\nkernel.pid_max = 32768\n' \
        >"$root/etc/sysctl.d/50-pid-max.conf"
    # GPIO chips for the gpio group, as Raspberry Pi OS's udev rules give them.
    printf 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"\n' \
        >"$root/etc/udev/rules.d/60-gpio-group.rules"
}

# Debian first (the longest part, kept if a later step stops), then the kernel's modules
# and the disk: a folder whose Debian is made goes on from there.
if [ ! -f "$out/.debian" ]; then
    rm -rf "$out"
    mkdir -p "$out"
    ssh-keygen -q -t ed25519 -N "" -C "table-controller box" -f "$out/key"
    say "making Debian bookworm ($box_arch) with mmdebstrap into $tree (minutes; the log: $log)"
    sources_text="$(cat "${sources[@]}")"
    # The sources (deb822 or one-line) are given to mmdebstrap as text on standard input.
    if ! printf '%s\n' "$sources_text" |
        nice -n 10 mmdebstrap "${foreign[@]}" --variant=minbase --include="$(
            IFS=,
            echo "${packages[*]} ${baked[*]}"
        )" \
            --customize-hook="set -e; $(declare -f setup_root); out='$out' user='$user' hostname='$hostname' console_tty='$console_tty' setup_root \"\$1\"" \
            --skip=cleanup/apt/lists \
            bookworm "$tree" - >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        fail "mmdebstrap failed (above; all of it in $log): check this machine's apt sources and network"
    fi
    touch "$out/.debian"
else
    say "going on with the unfinished image in $out (its Debian is made)"
fi
ln -sfn "$kernel" "$out/kernel"

# The box's kernel's modules (modprobe reads them; v4l2loopback is built against it).
[ "$(bash "$box_dir/kernel.sh")" = "$kernel" ] || fail "kernel.sh built another kernel than it named"
mkdir -p "$tree/lib/modules"
cp -a "$kernel/modules/lib/modules/." "$tree/lib/modules/"

say "making the disk: an ext4 file system of $size from $tree"
nice -n 10 mke2fs -q -t ext4 -L rootfs -d "$tree" "$out/root.img.partial" "$size" >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; fail "mke2fs failed (above; all of it in $log)"; }
rm -rf "$tree"
mv "$out/root.img.partial" "$out/root.img"
say "built the image in $((SECONDS - started)) s: $(du -h --apparent-size "$out/root.img" | cut -f1) file system, $(du -h "$out/root.img" | cut -f1) on disk"
echo "$out"
