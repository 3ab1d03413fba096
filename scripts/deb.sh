#!/usr/bin/env bash
# Debian packages of the static binaries that scripts/release.sh made:
#
#   scripts/deb.sh [--dist DIR] [--check] [--fast]
#
# For every DIR/truebench-VERSION-TARGET (default DIR: target/dist) writes
# DIR/truebench_VERSION_ARCH.deb (amd64, arm64, armhf, riscv64): /usr/bin/truebench, a man
# page per command (/usr/share/man/man1), completions for bash, zsh and fish, the licences.
# No Depends: the binary is static, so one package installs on Debian 10 as on 13 (and on
# Ubuntu, Armbian…). The peers truebench drives when present are Suggests.
#
# --check (root, dpkg): installs this machine's package with dpkg -i, runs the installed
# binary, checks the man page and completions are where man and the shells look, and removes
# the package again. Refuses when a truebench package is installed already.
#
# --fast: xz level 1 instead of the default 6 (2 s instead of 15 s a package, 20 % larger):
# for CI, which packages unstripped development builds to check them, not to ship them.
set -euo pipefail
cd "$(dirname "$0")/.."

dist=target/dist
check=0
level=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dist) dist=$2; shift 2 ;;
    --check) check=1; shift ;;
    --fast) level=(-z1); shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "deb.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v dpkg-deb >/dev/null || { echo "deb.sh: dpkg-deb is not installed" >&2; exit 1; }

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
shopt -s nullglob
bins=("$dist"/truebench-"$version"-*-linux-musl*)
[ ${#bins[@]} -gt 0 ] || { echo "deb.sh: no $dist/truebench-$version-TARGET; run scripts/release.sh first" >&2; exit 1; }

# Man pages and completions are made from the same clap definition by the packaged binary
# for this machine's architecture (static: it runs here), else by a build of this machine.
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
tb=""
for b in "${bins[@]}"; do
  case "${b##*/truebench-"$version"-}" in "$(uname -m)"-*) tb=$b ;; esac
done
if [ -z "$tb" ]; then
  cargo build -q -p truebench
  tb=target/debug/truebench
fi
"$tb" generate man "$gen/man" 2>/dev/null
gzip -9n "$gen"/man/*.1
"$tb" generate completions bash > "$gen/truebench.bash"
"$tb" generate completions zsh > "$gen/_truebench"
"$tb" generate completions fish > "$gen/truebench.fish"

debarch() {
  case "$1" in
    x86_64-*) echo amd64 ;;
    aarch64-*) echo arm64 ;;
    armv7-*) echo armhf ;;
    riscv64*) echo riscv64 ;;
    *) return 1 ;;
  esac
}

for bin in "${bins[@]}"; do
  target=${bin##*/truebench-"$version"-}
  arch=$(debarch "$target") || { echo "deb.sh: no Debian architecture for $target" >&2; exit 1; }
  pkg=$gen/pkg-$arch
  install -Dm755 "$bin" "$pkg/usr/bin/truebench"
  install -d "$pkg/usr/share/man/man1"
  install -m644 "$gen"/man/*.1.gz "$pkg/usr/share/man/man1/"
  install -Dm644 "$gen/truebench.bash" "$pkg/usr/share/bash-completion/completions/truebench"
  install -Dm644 "$gen/_truebench" "$pkg/usr/share/zsh/vendor-completions/_truebench"
  install -Dm644 "$gen/truebench.fish" "$pkg/usr/share/fish/vendor_completions.d/truebench.fish"
  doc=$pkg/usr/share/doc/truebench
  install -d "$doc"
  {
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: truebench"
    echo
    echo "Files: *"
    echo "Copyright: the truebench developers"
    echo "License: MIT or Apache-2.0"
    echo " The full texts follow."
    echo
    echo "License: MIT"
    sed 's/^$/./; s/^/ /' LICENSE-MIT
    echo
    echo "License: Apache-2.0"
    echo " On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0."
  } > "$doc/copyright"
  gzip -9nc README.md > "$doc/README.md.gz"
  size=$(du -sk "$pkg" | cut -f1)
  install -d "$pkg/DEBIAN"
  cat > "$pkg/DEBIAN/control" <<EOF
Package: truebench
Version: $version
Architecture: $arch
Maintainer: truebench developers <truebench@localhost>
Installed-Size: $size
Section: utils
Priority: optional
Suggests: 7zip, openssl, iperf3, smartmontools, stockfish
Description: how fast a Linux machine really is, and why
 truebench measures a Linux machine, from a single-board computer to a
 many-core server, and records the evidence of what the machine was doing
 (measured clocks, temperatures, load, throttling, swapping) next to every
 score. Statically linked: the same package works on old and new releases.
EOF
  out=$dist/truebench_${version}_$arch.deb
  dpkg-deb --root-owner-group -Zxz "${level[@]}" --build "$pkg" "$out" >/dev/null
  echo "$out"
done

if [ "$check" = 1 ]; then
  arch=$(dpkg --print-architecture)
  deb=$dist/truebench_${version}_$arch.deb
  [ -f "$deb" ] || { echo "deb.sh: no package for this machine's architecture ($arch)" >&2; exit 1; }
  if dpkg -s truebench >/dev/null 2>&1; then
    echo "deb.sh: a truebench package is installed already; --check would replace it" >&2
    exit 1
  fi
  trap 'dpkg -r truebench >/dev/null 2>&1 || true; rm -rf "$gen"' EXIT
  echo "== dpkg -i $deb"
  dpkg -i "$deb" >/dev/null
  /usr/bin/truebench --version
  /usr/bin/truebench info >/dev/null
  for f in /usr/share/man/man1/truebench.1.gz /usr/share/man/man1/truebench-run.1.gz \
    /usr/share/bash-completion/completions/truebench /usr/share/zsh/vendor-completions/_truebench \
    /usr/share/fish/vendor_completions.d/truebench.fish; do
    [ -s "$f" ] || { echo "deb.sh: $f is missing after dpkg -i" >&2; exit 1; }
  done
  zcat /usr/share/man/man1/truebench.1.gz | grep -q '^\.TH truebench' || { echo "deb.sh: truebench.1 is not a man page" >&2; exit 1; }
  grep -q 'complete -F _truebench' /usr/share/bash-completion/completions/truebench || { echo "deb.sh: no bash completion function" >&2; exit 1; }
  dpkg -L truebench | grep -c . | sed 's/^/files installed: /'
  dpkg -r truebench >/dev/null
  [ ! -e /usr/bin/truebench ] || { echo "deb.sh: /usr/bin/truebench left after dpkg -r" >&2; exit 1; }
  echo "== the package installs, runs and removes cleanly"
fi
