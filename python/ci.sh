#!/usr/bin/env bash
# The Python package's checks, on the wheel a user would install: builds the abi3 wheel with
# maturin, installs it into a fresh virtual environment with no Rust toolchain on PATH, together
# with the test dependencies (pytest, mypy, pyspark, dask[distributed], pyarrow, pandas), checks
# the type stubs against the installed module (mypy's stubtest), and runs the pytest suite, which
# includes messages exchanged with the sixsop binary, the Spark (local mode, needs Java 17+) and
# Dask examples on a small data set, and the same jobs against a Spark standalone master and
# worker and a Dask scheduler and workers the tests start on 127.0.0.1. Exits non-zero on any
# failure, and when no test ran.
set -euo pipefail
cd "$(dirname "$0")/.."

target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
build_venv="$target/python-build-venv"
venv="$target/python-ci-venv"
wheels="$target/python-wheels"
rm -rf "$build_venv" "$venv" "$wheels"

python3 -m venv "$build_venv"
"$build_venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.9,<2"
echo "building the wheel ($("$build_venv/bin/maturin" --version))"
"$build_venv/bin/maturin" build --release --manifest-path python/Cargo.toml --out "$wheels"
wheel=$(ls "$wheels"/sixpgp-*-abi3-*.whl)

# The sixsop binary for the interop tests.
cargo build --quiet -p sixpgp-sop --bin sixsop
export SIXSOP="$target/debug/sixsop"
# For tests that install the package elsewhere (a cluster's workers).
export SIXPGP_WHEEL="$wheel"

# From here on, no Rust toolchain: the wheel must install and work without one.
norust=""
IFS=: read -ra dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  if [ -n "$dir" ] && [ ! -e "$dir/cargo" ] && [ ! -e "$dir/rustc" ]; then
    norust="${norust:+$norust:}$dir"
  fi
done
export PATH="$norust"
if command -v cargo >/dev/null || command -v rustc >/dev/null; then
  echo "a Rust toolchain is still on PATH"
  exit 1
fi

python3 -m venv "$venv"
echo "installing $(basename "$wheel") into a fresh environment ($("$venv/bin/python" --version))"
"$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary sixpgp "$wheel" \
  pytest mypy pyspark "dask[distributed]" pyarrow pandas

echo "checking the type stubs against the module (stubtest)"
MYPY_CACHE_DIR="$target/python-mypy-cache" "$venv/bin/python" -m mypy.stubtest sixpgp \
  --allowlist python/stubtest-allowlist.txt --mypy-config-file python/pyproject.toml

status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests"
  exit 1
fi
exit "$status"
