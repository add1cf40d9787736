#!/usr/bin/env bash
# The Python package's checks: builds and installs ./python into a fresh virtual environment with
# the test dependencies (pytest, pyspark, dask[distributed], pyarrow, pandas) and runs the pytest
# suite, which includes messages exchanged with the sixsop binary, the Spark (local mode, needs
# Java 17+) and Dask examples on a small data set, and the same jobs against a Spark standalone
# master and worker and a Dask scheduler and workers the tests start on 127.0.0.1. Exits non-zero on any failure, and when no test ran.
set -euo pipefail
cd "$(dirname "$0")/.."

target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
venv="$target/python-ci-venv"
rm -rf "$venv"
python3 -m venv "$venv"
echo "building and installing the package ($("$venv/bin/python" --version))"
"$venv/bin/pip" install --quiet --disable-pip-version-check ./python pytest pyspark "dask[distributed]" pyarrow pandas

# The sixsop binary for the interop tests.
cargo build --quiet -p sixpgp-sop --bin sixsop
export SIXSOP="$target/debug/sixsop"

status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests"
  exit 1
fi
exit "$status"
