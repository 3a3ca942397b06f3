#!/usr/bin/env bash
# Runs the box: QEMU boots the image (image.sh) with the box's kernel (kernel.sh), on a
# disk of its own laid over the cached image (a qcow2 overlay: the image stays as built).
#   hardware/box/box.sh start DIR      boots a box kept in DIR (its disk, console log,
#                                      ports); prints the seconds to the ssh login. It
#                                      then gives the box the wheelhouse (wheels.sh) for
#                                      pip, its GPIO header (gpio-header.sh) and its
#                                      USB camera (v4l2loopback.sh, camera.service)
#   hardware/box/box.sh ssh DIR [CMD]  a shell in the box as pi, or runs CMD there
#   hardware/box/box.sh copy DIR       copies this project to /home/pi/table-controller
#   hardware/box/box.sh reboot DIR     reboots it (sudo reboot) and waits for the login
#   hardware/box/box.sh stop DIR       shuts it down (QEMU is killed if it does not stop)
#   hardware/box/box.sh port DIR NAME  the host's port for the box's ssh or web (8080), or
#                                      cube: the host's pseudo-terminal wired to the box's
#                                      serial port for the trump cube (cube-device names
#                                      it in the box: /dev/ttyS1, or /dev/ttyAMA0 on arm64)
#                                      or mac: its network card's address
# QEMU emulates the machine (TCG): KVM hung at the kernel's start on these machines.
# BOX_ACCEL=kvm tries it anyway. DIR's console.log has everything the box's console said.
# BOX_ARCH=arm64 boots the Pi's architecture (QEMU's virt machine, a Cortex-A76 as in the
# Raspberry Pi 5) from its own kernel and image; the default is amd64 (q35).
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

usage="use: box.sh start|ssh|copy|reboot|stop|port DIR (box.sh's first lines say more)"
[ $# -ge 2 ] || fail "$usage"
action="$1" dir="$2"
shift 2
project="$(cd "$box_dir/../.." && pwd)"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port() {
    case "$1" in
        cube) cat "$dir/cube" 2>/dev/null ;;
        cube-device) sed -n 's/^cube_device=//p' "$dir/machine" 2>/dev/null ;;
        mac) sed -n 's/^mac=//p' "$dir/machine" 2>/dev/null ;;
        *) sed -n "s/^$1=//p" "$dir/ports" 2>/dev/null ;;
    esac
}

box_ssh() {
    local port
    port="$(port ssh)"
    [ -n "$port" ] || fail "no box in $dir: start one with box.sh start $dir"
    ssh -i "$dir/image/key" -p "$port" -o BatchMode=yes -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=60 \
        -o ServerAliveInterval=15 pi@127.0.0.1 "$@"
}

running() { [ -f "$dir/qemu.pid" ] && kill -0 "$(cat "$dir/qemu.pid")" 2>/dev/null; }

# Waits for the box's ssh to let pi in on a boot other than $1 (its boot id), then for
# systemd to finish starting; prints the boot id.
wait_login() {
    local old="$1" limit="${BOX_BOOT_TIMEOUT:-600}" started=$SECONDS id
    while :; do
        running || fail "QEMU stopped while booting: $dir/console.log has what the box said"
        if id="$(box_ssh cat /proc/sys/kernel/random/boot_id 2>/dev/null)" && [ "$id" != "$old" ]; then
            break
        fi
        [ $((SECONDS - started)) -lt "$limit" ] ||
            fail "no login in $limit s: $dir/console.log has what the box said"
        sleep 2
    done
    box_ssh systemctl is-system-running --wait >/dev/null 2>&1 || true
    echo "$id"
}

# The box reaches the internet through this machine, so it trusts the certificates this
# machine trusts: where the network here re-signs TLS with a CA of its own (in this
# machine's bundle), pip and apt in the box would otherwise refuse every download. On an
# ordinary network this adds nothing the box did not trust already.
trust_host_network() {
    local bundle=/etc/ssl/certs/ca-certificates.crt
    [ -f "$bundle" ] || return 0
    # Kept where update-ca-certificates finds it on its next run, and added to the bundle
    # at once (update-ca-certificates itself takes minutes under emulation).
    box_ssh 'sudo tee /usr/local/share/ca-certificates/host-network.crt >/dev/null &&
        if ! sudo test -f /etc/ssl/certs/.host-network; then
            sudo sh -c "cat /usr/local/share/ca-certificates/host-network.crt >>/etc/ssl/certs/ca-certificates.crt" &&
            sudo touch /etc/ssl/certs/.host-network
        fi' <"$bundle" || fail "could not give the box this machine's certificates"
}

# pip in the box, told through its own configuration (/etc/pip.conf) what pip here is
# told: the system's certificate bundle, and with a wheelhouse (wheels.sh, shared
# read-only over 9p at /var/cache/box-wheels) to install from it and from nothing else.
# first-boot.sh and scripts/setup.sh run unchanged; a Pi without this file downloads.
configure_pip() {
    local conf
    conf=$'[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n'
    if [ -n "$wheels" ]; then
        conf+=$'find-links = /var/cache/box-wheels\nno-index = true\n'
        box_ssh 'sudo mkdir -p /var/cache/box-wheels &&
            { grep -q "^wheels " /etc/fstab ||
              echo "wheels /var/cache/box-wheels 9p trans=virtio,version=9p2000.L,ro,nofail 0 0" |
                sudo tee -a /etc/fstab >/dev/null; } &&
            { mountpoint -q /var/cache/box-wheels || sudo mount /var/cache/box-wheels; }' ||
            fail "could not mount the wheelhouse in the box (9p): $dir/console.log may say why"
    fi
    printf '%s' "$conf" | box_ssh 'sudo tee /etc/pip.conf >/dev/null' ||
        fail "could not write the box's /etc/pip.conf"
}

# The box's own stand-ins for the Pi's board (gpio-header.sh): the simulated GPIO chip
# made at every boot, and the Pi's revision the table's unit is shown. Nothing of the
# table's own changes: its unit is given a drop-in, as a person would with systemctl edit.
install_board() {
    tar -C "$box_dir" -cf - gpio-header.sh gpio-header.service board.conf |
        box_ssh 'set -e; rm -rf /tmp/board && mkdir /tmp/board && tar -C /tmp/board -xf -
            sudo install -m 755 /tmp/board/gpio-header.sh /usr/local/sbin/box-gpio-header
            sudo install -m 644 /tmp/board/gpio-header.service /etc/systemd/system/box-gpio-header.service
            sudo install -D -m 644 /tmp/board/board.conf /etc/systemd/system/table-controller.service.d/box-board.conf
            sudo systemctl daemon-reload
            sudo systemctl enable --now box-gpio-header.service >/dev/null 2>&1' ||
        fail "could not set up the box's GPIO header: box.sh ssh $dir journalctl -u box-gpio-header says why"
}

# The box's USB camera (camera.service): the v4l2loopback module built for the box's
# kernel (v4l2loopback.sh), installed as a module of its own and loaded at every boot as
# /dev/video0, and camera-feed.py, which gives it the simulated table's picture
# (box-camera-feed.service, started by whoever wants a picture). Where the module cannot
# be built, the box starts without a camera, says so, and DIR/camera-missing says why.
install_camera() {
    local module
    rm -f "$dir/camera-missing"
    if ! module="$(bash "$box_dir/v4l2loopback.sh")"; then
        say "the box has no camera: v4l2loopback could not be built for its kernel (above)"
        echo "v4l2loopback could not be built for the box's kernel: hardware/box/v4l2loopback.sh says why" >"$dir/camera-missing"
        return 0
    fi
    # shellcheck disable=SC2016 # $(uname -r) is the box's, expanded there
    tar -cf - -C "$box_dir" camera.service camera.conf camera-feed.service camera-feed.py \
        -C "$module" v4l2loopback.ko release |
        box_ssh 'set -e; rm -rf /tmp/camera && mkdir /tmp/camera && tar -C /tmp/camera -xf -
            if [ "$(cat /tmp/camera/release)" != "$(uname -r)" ]; then
                echo "the module is for kernel $(cat /tmp/camera/release), the box runs $(uname -r)" >&2
                exit 3
            fi
            sudo install -D -m 644 /tmp/camera/v4l2loopback.ko "/lib/modules/$(uname -r)/extra/v4l2loopback.ko"
            sudo depmod -a
            sudo install -D -m 644 /tmp/camera/camera.conf /etc/modprobe.d/box-camera.conf
            sudo install -D -m 644 /tmp/camera/camera-feed.py /usr/local/lib/box/camera-feed.py
            sudo install -m 644 /tmp/camera/camera.service /etc/systemd/system/box-camera.service
            sudo install -m 644 /tmp/camera/camera-feed.service /etc/systemd/system/box-camera-feed.service
            sudo systemctl daemon-reload
            sudo systemctl enable --now box-camera.service >/dev/null 2>&1' ||
        fail "could not set up the box's camera: box.sh ssh $dir journalctl -u box-camera says why"
}

case "$action" in
    start)
        running && fail "a box runs in $dir already: stop it with box.sh stop $dir"
        need_packages "$qemu_package" qemu-utils openssh-client
        image="$(bash "$box_dir/image.sh")"
        wheels="$(bash "$box_dir/wheels.sh")" ||
            { say "no wheelhouse: pip in the box downloads from the package index (slower)"; wheels=""; }
        share=()
        [ -z "$wheels" ] ||
            share=(-virtfs "local,path=$wheels,mount_tag=wheels,security_model=none,readonly=on")
        mkdir -p "$dir"
        dir="$(cd "$dir" && pwd)"
        was="$(sed -n 's/^arch=//p' "$dir/machine" 2>/dev/null || true)"
        if [ -n "$was" ] && [ "$was" != "$box_arch" ]; then
            fail "the box in $dir is $was, not $box_arch: start it with BOX_ARCH=$was, or use another folder"
        fi
        ln -sfn "$image" "$dir/image"
        if [ ! -f "$dir/disk.qcow2" ]; then
            qemu-img create -q -f qcow2 -F raw -b "$image/root.img" "$dir/disk.qcow2"
        fi
        printf 'ssh=%s\nweb=%s\n' "$(free_port)" "$(free_port)" >"$dir/ports"
        accel="${BOX_ACCEL:-tcg}"
        rm -f "$dir/console.log"
        # Each box's network card has an address of its own, kept with it, as every Pi's
        # has (QEMU's default, 52:54:00:12:34:56, would be every box's: the table tells
        # the director its machine by it, and two boxes would look like one).
        mac="$(sed -n 's/^mac=//p' "$dir/machine" 2>/dev/null || true)"
        [ -n "$mac" ] || mac="$(od -An -N3 -tx1 /dev/urandom | tr -s ' ' ':' | sed 's/^/52:54:00/; s/:$//')"
        printf 'arch=%s\ncube_device=/dev/%s\nmac=%s\n' "$box_arch" "$cube_tty" "$mac" >"$dir/machine"
        # The console to DIR/console.log; the cube's serial port to a pseudo-terminal here.
        # shellcheck disable=SC2054 # QEMU's options hold commas
        if [ "$box_arch" = amd64 ]; then
            machine=(-machine q35 -cpu max -serial "file:$dir/console.log"
                -chardev pty,id=cube -serial chardev:cube)
        else
            machine=(-machine virt,gic-version=3 -cpu cortex-a76
                -chardev pty,id=cube -serial chardev:cube
                -device virtio-serial-pci -chardev "file,id=console,path=$dir/console.log"
                -device virtconsole,chardev=console)
        fi
        started=$(date +%s.%N)
        "$qemu" "${machine[@]}" -accel "$accel" -smp 2 -m "${BOX_MEMORY:-2048}" \
            -kernel "$image/kernel/vmlinuz" \
            -append "root=/dev/vda rw console=$console_tty,115200 panic=-1 ${BOX_APPEND:-}" \
            -drive "file=$dir/disk.qcow2,if=virtio,format=qcow2,discard=unmap" \
            -netdev "user,id=net0,hostname=raspberrypi,hostfwd=tcp:127.0.0.1:$(port ssh)-:22,hostfwd=tcp:127.0.0.1:$(port web)-:8080" \
            -device "virtio-net-pci,netdev=net0,mac=$mac" -device virtio-rng-pci "${share[@]}" \
            -display none -monitor none -daemonize -pidfile "$dir/qemu.pid" >"$dir/qemu.log" 2>&1 ||
            fail "QEMU did not start: $(cat "$dir/qemu.log") (is $qemu_package installed?)"
        # The box's serial port for the cube (its ttyS1, or ttyAMA0 on arm64) is this
        # machine's pseudo-terminal, which QEMU names as it starts: kept in DIR/cube for
        # box.sh port DIR cube.
        sed -n 's|^char device redirected to \(/dev/pts/[0-9]*\) (label cube).*|\1|p' \
            "$dir/qemu.log" >"$dir/cube"
        [ -s "$dir/cube" ] || fail "QEMU named no pseudo-terminal for the cube: $dir/qemu.log"
        wait_login none >"$dir/boot_id"
        elapsed="$(echo "$(date +%s.%N) - $started" | bc)"
        trust_host_network
        configure_pip
        install_board
        install_camera
        printf 'box: ready in %.1f s (ssh login, systemd started): box.sh ssh %s\n' "$elapsed" "$dir" >&2
        printf '%.1f\n' "$elapsed"
        ;;
    ssh)
        box_ssh "$@"
        ;;
    copy)
        # The project as a person copies it onto the card: the checkout less what is built.
        say "copying $project to the box's /home/pi/table-controller"
        tar -C "$project" --exclude=./.venv --exclude=./.git --exclude=./test-artifacts \
            --exclude=./build --exclude=./dist --exclude='*.egg-info' --exclude='__pycache__' \
            --exclude='*.so' --exclude=./.mypy_cache --exclude=./.ruff_cache \
            --exclude=./.pytest_cache --exclude=./.hypothesis -cf - . |
            box_ssh 'rm -rf table-controller && mkdir table-controller && tar -C table-controller -xf -'
        ;;
    reboot)
        old="$(box_ssh cat /proc/sys/kernel/random/boot_id)"
        started=$(date +%s.%N)
        box_ssh sudo systemctl reboot || true
        wait_login "$old" >"$dir/boot_id"
        elapsed="$(echo "$(date +%s.%N) - $started" | bc)"
        printf 'box: rebooted in %.1f s\n' "$elapsed" >&2
        printf '%.1f\n' "$elapsed"
        ;;
    stop)
        if running; then
            box_ssh sudo systemctl poweroff >/dev/null 2>&1 || true
            for _ in $(seq 60); do running || break; sleep 1; done
            if running; then kill "$(cat "$dir/qemu.pid")"; sleep 1; fi
        fi
        rm -f "$dir/qemu.pid"
        ;;
    port)
        [ $# -eq 1 ] || fail "use: box.sh port DIR ssh|web|cube|cube-device|mac"
        port "$1"
        ;;
    *) fail "$usage" ;;
esac
