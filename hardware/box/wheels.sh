#!/usr/bin/env bash
# Builds the box's wheelhouse: every Python package the table's setup installs in the box
# (the project's dependencies and its `pi` extra at constraints.txt's versions; pip,
# setuptools and wheel, which scripts/setup.sh upgrades and the project's build needs;
# lgpio, which a Pi has from Raspberry Pi OS and the box from here), downloaded on this
# machine as wheels for the box's Python (3.11, Debian bookworm's) and architecture.
# box.sh hands the folder to the box read-only, and pip in the box installs from it
# (/etc/pip.conf: find-links, no-index): under emulation, downloading and resolving took
# minutes that tell nothing about the table. first-boot.sh itself is unchanged.
#   hardware/box/wheels.sh          prints the wheelhouse's folder (built if need be)
#   hardware/box/wheels.sh --path   prints the folder's name alone, building nothing
# The folder, in the box's cache (README.md), is named by a hash of constraints.txt,
# pyproject.toml and this script, so a change to the project's packages builds anew.
# PYTHON names this machine's Python whose pip downloads them (default: python3).
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

project="$(cd "$box_dir/../.." && pwd)"
python="${PYTHON:-python3}"
box_python=3.11  # Debian bookworm's, as Raspberry Pi OS's
arch="$machine_arch"  # the box's (common.sh: x86_64, or aarch64 with BOX_ARCH=arm64)
glibc_minor=36   # bookworm's glibc 2.36: wheels for it and every older manylinux

case "${1:-}" in
    "" | --path) ;;
    *) fail "no option '$1': use --path, or none" ;;
esac
key="$(inputs_hash "$box_python $arch $glibc_minor" "$0" "$box_dir/common.sh" \
    "$project/constraints.txt" "$project/pyproject.toml")"
out="$box_cache/wheels-$key"
if [ "${1:-}" = --path ]; then
    echo "$out"
    exit 0
fi
mkdir -p "$box_cache"
exec 9>"$out.lock"
flock 9
if [ -f "$out/.complete" ]; then
    echo "$out"
    exit 0
fi
"$python" -m pip --version >/dev/null 2>&1 ||
    fail "$python has no pip to download the box's wheels with: install python3-pip, or set PYTHON"

# The requirements: the project's dependencies and its pi extra, with the extras it names
# in turn (table-controller[feed]), read from pyproject.toml.
requirements="$("$python" - "$project/pyproject.toml" <<'EOF'
import re, sys, tomllib

project = tomllib.load(open(sys.argv[1], "rb"))["project"]
extras = project["optional-dependencies"]
wanted, seen, todo = list(project["dependencies"]), set(), ["pi"]
while todo:
    extra = todo.pop()
    if extra in seen:
        continue
    seen.add(extra)
    for line in extras[extra]:
        own = re.fullmatch(r"table-controller\[([a-z, ]+)\]", line.strip())
        if own:
            todo += [e.strip() for e in own.group(1).split(",")]
        else:
            wanted.append(line)
for line in wanted:
    print(line.split(";")[0].strip())
EOF
)" || fail "could not read the project's packages from $project/pyproject.toml"

platforms=()
for minor in $(seq "$glibc_minor" -1 17); do platforms+=(--platform "manylinux_2_${minor}_$arch"); done
platforms+=(--platform "manylinux2014_$arch")
rm -rf "$out"
mkdir -p "$out"
say "downloading the box's wheels into $out"
mapfile -t wanted <<<"$requirements"
if ! "$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    "${platforms[@]}" --python-version "$box_python" --implementation cp \
    --abi "cp${box_python/./}" -c "$project/constraints.txt" -d "$out" \
    "${wanted[@]}" pip setuptools wheel lgpio >"$out/download.log" 2>&1; then
    tail -n 20 "$out/download.log" >&2
    fail "could not download the box's wheels (above; all of it in $out/download.log): check the network, or a package without a wheel for Python $box_python on $arch"
fi
touch "$out/.complete"
say "the box's wheelhouse: $(find "$out" -name '*.whl' | wc -l) wheels, $(du -sh "$out" | cut -f1)"
echo "$out"
