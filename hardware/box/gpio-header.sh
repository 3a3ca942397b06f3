#!/usr/bin/env bash
# The box's stand-in for a Raspberry Pi's 40-pin header, made at every boot by
# box-gpio-header.service (box.sh installs both in the box; nothing of the table's own):
# - a simulated GPIO chip (the kernel's gpio-sim, made through configfs) with the 28
#   lines of the header, named GPIO0 to GPIO27 as on a Pi, which the table opens through
#   lgpio as it opens the Pi's (/dev/gpiochipN, the gpio group's by the image's udev
#   rule). A test presses a button by pulling a line (sysfs: .../sim_gpioN/pull) and
#   reads a light from its value (.../sim_gpioN/value);
# - /run/box/cpuinfo: the box's /proc/cpuinfo with a Raspberry Pi 5's board revision
#   added. gpiozero's Pi factories (lgpio's too) read the board from /proc/cpuinfo's
#   "Revision" line where there is no device tree, and have no other way to be told;
#   the table's unit is shown this copy (box-board.conf: BindReadOnlyPaths).
# It prints the chip's device (gpiochipN) and its sysfs folder.
set -euo pipefail

lines=28
revision=c04170  # a Raspberry Pi 5 Model B, 4 GB (table_controller/devices/gpio.py's)
config=/sys/kernel/config
chip="$config/gpio-sim/header"

mountpoint -q "$config" || mount -t configfs configfs "$config"
[ -d "$config/gpio-sim" ] ||
    { echo "this kernel has no gpio-sim (CONFIG_GPIO_SIM): build the box's kernel (kernel.sh)" >&2; exit 1; }
if [ ! -d "$chip" ]; then
    mkdir "$chip" "$chip/bank0"
    echo "$lines" >"$chip/bank0/num_lines"
    echo "box-header" >"$chip/bank0/label"
    for ((n = 0; n < lines; n++)); do
        mkdir "$chip/bank0/line$n"
        echo "GPIO$n" >"$chip/bank0/line$n/name"
    done
fi
[ "$(cat "$chip/live")" = 1 ] || echo 1 >"$chip/live"
device="$(cat "$chip/dev_name")"
name="$(cat "$chip/bank0/chip_name")"
udevadm settle --timeout=60 || true  # the gpio group's rule on /dev/$name

mkdir -p /run/box
{
    cat /proc/cpuinfo
    printf 'Revision\t: %s\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0 (the box: simulated)\n' "$revision"
} >/run/box/cpuinfo.partial
mv /run/box/cpuinfo.partial /run/box/cpuinfo
echo "$name /sys/devices/platform/$device/$name"
