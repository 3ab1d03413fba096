#!/usr/bin/env bash
# Static truebench binaries (musl, no dynamic dependency) for x86_64, aarch64, armv7 (armhf)
# and riscv64gc, with SHA-256 checksums:
#
#   scripts/release.sh [--profile release|dev] [--out DIR] [--target-dir DIR]
#                      [--test [--all-tests] [--unit-tests TARGET,…|none]]
#                      [--prebuilt-std-only] [TARGET…]
#
# Writes DIR/truebench-VERSION-TARGET and DIR/SHA256SUMS (default DIR: target/dist).
# --target-dir: cargo's folder for the cross builds (default target; another one lets them
# run while a native cargo works in target, as CI does). Each
# binary is checked to have no program interpreter and no NEEDED library. --test also runs,
# for each target under qemu-user, the unit tests of the pure crates (--all-tests: their
# integration tests too, minutes more per target) and the checks of
# crates/truebench/tests/static_builds.rs (info --root on fixture trees equal to the native
# build's, the clock, AES and LZMA kernels, the bundled SQLite). --unit-tests limits the
# pure crates' tests to the targets listed (comma-separated, or none); the binary's checks
# still run on every target. CI runs them on armv7 only: the one 32-bit target (pointer
# width is where a pure parser can differ between these little-endian targets; the native
# tests cover 64 bits), while the arch-specific code — the kernels — is in the binary's
# checks on each.
#
# Each step's line says when it began, in seconds since the script started.
#
# Needs: rustup; cargo-zigbuild and zig, which cross-compile and link the C parts (bundled
# SQLite, liblzma) for every target: `pip install cargo-zigbuild==0.24.1 ziglang==0.17.1`
# (a venv is fine: put its bin/ first on PATH); readelf (binutils); qemu-user for --test.
# Per target, its Rust standard library (`rustup target add TARGET`), or, where the toolchain
# server has none for it, the rust-src component: std is then built from source
# (-Zbuild-std, allowed on a stable toolchain by RUSTC_BOOTSTRAP=1), which is said.
# --prebuilt-std-only: a target without a prebuilt std is not built but named, with how to
# build it (CI: std from source is most of the static builds' time). The targets with neither
# unit tests nor a std from source build together in one cargo invocation.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
out=target/dist
tbase=target
test=0
testkind=(--lib)
units=all
prebuilt_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --target-dir) tbase=$2; shift 2 ;;
    --test) test=1; shift ;;
    --all-tests) testkind=(); shift ;;
    --unit-tests) units=$2; shift 2 ;;
    --prebuilt-std-only) prebuilt_only=1; shift ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "release.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl
  armv7-unknown-linux-musleabihf riscv64gc-unknown-linux-musl)
if [ "$units" != all ] && [ "$units" != none ]; then
  IFS=, read -ra listed <<<"$units"
  for u in "${listed[@]}"; do
    [[ " ${targets[*]} " == *" $u "* ]] || {
      echo "release.sh: --unit-tests names $u, which is not a target of this build (${targets[*]})" >&2
      exit 2
    }
  done
fi

command -v cargo-zigbuild >/dev/null || {
  echo "release.sh: cargo-zigbuild is not installed: pip install cargo-zigbuild==0.24.1 ziglang==0.17.1" >&2
  exit 1
}
command -v readelf >/dev/null || { echo "release.sh: readelf (binutils) is not installed" >&2; exit 1; }

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
# The pure crates: parsers, model, figures, rendering, history — no measurement, no /sys writes.
pure=(-p truebench-host -p truebench-model -p truebench-sbcbench -p truebench-figures -p truebench-render -p truebench-store)
mkdir -p "$out"
checks=()
built=()

runner() { # the qemu-user that runs TARGET's binaries here ("" = natively)
  case "$1" in
    x86_64-*) [ "$(uname -m)" = x86_64 ] && echo "" || echo qemu-x86_64 ;;
    aarch64-*) [ "$(uname -m)" = aarch64 ] && echo "" || echo qemu-aarch64 ;;
    armv7-*) echo qemu-arm ;;
    riscv64*) echo qemu-riscv64 ;;
    *) echo "release.sh: no runner known for $1" >&2; return 1 ;;
  esac
}

# prepare TARGET: its standard library (fetched, or from source with rust-src) and cargo
# folder into std, boot and tdir, and whether its pure crates' unit tests run (unit); false
# when it is not built (--prebuilt-std-only and no prebuilt std), which is said.
prepare() {
  local t=$1
  std=()
  boot=()
  tdir=$tbase
  unit=0
  if [ "$test" = 1 ] && { [ "$units" = all ] || [[ ",$units," == *",$t,"* ]]; }; then
    unit=1
  fi
  if ! rustup target list --installed | grep -qx "$t"; then
    if ! timeout 300 rustup target add "$t" >/dev/null 2>&1; then
      if [ "$prebuilt_only" = 1 ]; then
        echo "== not built: $t — the toolchain server gives no standard library for it here; without --prebuilt-std-only, and with rust-src (rustup component add rust-src), this script builds its std from source"
        [ "$unit" = 0 ] || echo "== the pure crates' unit tests on $t not run"
        return 1
      elif rustup component list --installed | grep -q '^rust-src'; then
        echo "== [${SECONDS} s] $t: no prebuilt standard library from the toolchain server; building std from source (-Zbuild-std)"
        std=(-Zbuild-std=std,panic_unwind)
        boot=(env RUSTC_BOOTSTRAP=1)
        # Its own target folder: RUSTC_BOOTSTRAP changes the fingerprint of the host's
        # build scripts and proc macros, which native builds in between would rebuild.
        tdir=$tbase/build-std
      else
        echo "release.sh: $t: 'rustup target add $t' failed and rust-src is not installed (rustup component add rust-src)" >&2
        exit 1
      fi
    fi
  fi
}

# build_alone TARGET (after prepare): its binary, and with unit=1 the pure crates' unit tests.
build_alone() {
  local t=$1
  if [ "$unit" = 1 ] && [ ${#testkind[@]} -gt 0 ]; then
    # One cargo invocation builds the binary and the pure crates' unit tests: one feature
    # resolution, so the dependencies are compiled once (a separate `cargo build` resolves
    # without the tests' dev-dependencies and compiles most of them again), and the binary
    # shipped is the binary the tests were built with. static_builds is the integration
    # test that makes cargo build the binary; its checks run natively below.
    tsel=(-p truebench --test static_builds "${pure[@]}" "${testkind[@]}")
    echo "== [${SECONDS} s] $t: cargo zigbuild test --no-run --profile $profile (the binary and the unit tests)"
    "${boot[@]}" cargo-zigbuild test --no-run --profile "$profile" --target "$t" --target-dir "$tdir" \
      "${std[@]}" "${tsel[@]}"
  else
    echo "== [${SECONDS} s] $t: cargo zigbuild --profile $profile"
    "${boot[@]}" cargo-zigbuild zigbuild --profile "$profile" --target "$t" --target-dir "$tdir" \
      "${std[@]}" -p truebench
  fi
}

# finish TARGET (after its build, with prepare's settings): the binary checked to be static
# and copied out; with unit=1 the pure crates' unit tests run.
finish() {
  local t=$1 dir=$profile r=
  [ "$profile" = dev ] && dir=debug
  local bin=$tdir/$t/$dir/truebench
  if readelf -lW "$bin" | grep -q 'program interpreter' || readelf -dW "$bin" | grep -q NEEDED; then
    echo "release.sh: $bin is not static:" >&2
    readelf -lW "$bin" | grep -i interpreter >&2 || true
    readelf -dW "$bin" | grep NEEDED >&2 || true
    exit 1
  fi
  ! command -v file >/dev/null || echo "$t: $(file -b "$bin")"
  cp "$bin" "$out/truebench-$version-$t"
  built+=("truebench-$version-$t")
  if [ "$test" = 1 ]; then
    r=$(runner "$t")
    [ -z "$r" ] || command -v "$r" >/dev/null || { echo "release.sh: $r (qemu-user) is not installed" >&2; exit 1; }
    checks+=("$t")
  fi
  if [ "$unit" = 1 ]; then
    echo "== [${SECONDS} s] $t: tests of the pure crates${r:+ under $r}"
    if [ ${#testkind[@]} -gt 0 ]; then
      # The same selection as the build above (another would resolve features anew);
      # static_builds' checks are ignored here and run natively below.
      "${boot[@]}" cargo-zigbuild test --profile "$profile" --target "$t" --target-dir "$tdir" \
        "${std[@]}" "${tsel[@]}"
    else
      "${boot[@]}" cargo-zigbuild test --profile "$profile" --target "$t" --target-dir "$tdir" \
        "${std[@]}" "${pure[@]}"
    fi
  fi
}

# Targets with a unit test run or a std from source are built one by one; the others
# together, in one cargo invocation: its jobs then interleave, and each target's last,
# single-threaded steps (the binary's crate, its link) run beside the other's instead of
# after them on an otherwise idle CPU.
together=()
for t in "${targets[@]}"; do
  prepare "$t" || continue
  if [ "$unit" = 0 ] && [ ${#std[@]} = 0 ]; then
    together+=("$t")
  else
    build_alone "$t"
    finish "$t"
  fi
done
if [ ${#together[@]} -gt 0 ]; then
  tflags=()
  for t in "${together[@]}"; do tflags+=(--target "$t"); done
  echo "== [${SECONDS} s] ${together[*]}: cargo zigbuild --profile $profile"
  cargo-zigbuild zigbuild --profile "$profile" "${tflags[@]}" --target-dir "$tbase" -p truebench
  for t in "${together[@]}"; do
    std=() boot=() tdir=$tbase unit=0
    finish "$t"
  done
fi

# The checks of the static binaries run natively (the test drives each binary under its
# qemu-user), after every target is built: one native build of the check for all of them.
# With --workspace, as README's test command builds it: `-p truebench` resolves features for
# that package alone and compiled a dozen crates again (28 s in CI) for this one test.
for t in "${checks[@]}"; do
  r=$(runner "$t")
  echo "== [${SECONDS} s] $t: the static binary${r:+ under $r}"
  TRUEBENCH_STATIC_BIN="$out/truebench-$version-$t" TRUEBENCH_STATIC_RUNNER="$r" \
    cargo test --workspace --test static_builds -- --ignored --nocapture
done

if [ ${#built[@]} = 0 ]; then
  echo "== [${SECONDS} s] done: nothing built"
  exit 0
fi
(cd "$out" && sha256sum truebench-"$version"-* > SHA256SUMS)
echo "== [${SECONDS} s] done: $out"
cat "$out/SHA256SUMS"
