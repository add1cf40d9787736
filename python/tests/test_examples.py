"""The examples run end to end with no arguments (their own key and demo data): bulk, Spark
in local mode, Dask on a LocalCluster. Each damages every 1000th message: failures are counted,
not fatal."""

import re
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR

EXAMPLES = PYTHON_DIR / "examples"


def run(script, *args, timeout=600):
    out = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_bulk_decrypt_demo():
    out = run("bulk_decrypt.py")
    assert "20000 messages" in out and "19980 decrypted, 20 failed" in out


def test_bulk_decrypt_file_and_output(tmp_path):
    data = tmp_path / "m.b64"
    run("bulk_decrypt.py", "--make", str(data), "300")
    with open(data, "a") as f:
        f.write("not base64!\n")
    out = run("bulk_decrypt.py", str(data), "--threads", "1", "--output", str(tmp_path / "out"))
    assert "300 decrypted, 1 failed" in out
    lines = (tmp_path / "out").read_text().splitlines()
    assert len(lines) == 301 and lines[-1].startswith("error\tMalformed")


def _check_engine_output(out, count):
    match = re.search(r"(\d+) messages: (\d+) decrypted, (\d+) failed; output in", out)
    assert match, out
    assert [int(g) for g in match.groups()] == [count, count - count // 1000, count // 1000]


def test_spark_example_local_mode():
    pytest.importorskip("pyspark")
    _check_engine_output(run("spark_decrypt.py", "--demo-count", "3000"), 3000)


def test_dask_example_local_cluster():
    pytest.importorskip("dask.distributed")
    _check_engine_output(run("dask_decrypt.py", "--demo-count", "3000"), 3000)
