"""The examples against real clusters started here as separate processes on 127.0.0.1: a Spark
standalone master and worker (Java needed; skipped without it), and a Dask scheduler and two
worker processes. What local mode hides shows here: the package and the Decryptor shipped to
other processes, PYSPARK_PYTHON, results serialised back. Beside them, the Spark data-frame
example in local mode, the one mode in which it writes files of its own. Every wait is bounded."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import PYTHON_DIR

pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
EXAMPLES = PYTHON_DIR / "examples"
LOOPBACK = "127.0.0.1"
# Bounds: a daemon's start, and one example's run (JVM starts on a loaded 2-core machine).
START_TIMEOUT = 120
RUN_TIMEOUT = 600
MESSAGES = 2000


def loopback_env():
    """The environment of every process here: loopback only, this interpreter for Python."""
    env = dict(os.environ, SPARK_LOCAL_IP=LOOPBACK, SPARK_LOCAL_HOSTNAME=LOOPBACK,
               PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    env.pop("SPARK_HOME", None)
    return env


def free_port():
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def wait_for_port(port, process, what):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited with status {process.returncode}")
        with socket.socket() as s:
            s.settimeout(1)
            if s.connect_ex((LOOPBACK, port)) == 0:
                return
        time.sleep(0.5)
    pytest.fail(f"{what} did not listen on {LOOPBACK}:{port} within {START_TIMEOUT} s")


class Daemons:
    """Processes started in their own sessions, stopped (their process groups) at the end."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.processes = []

    def start(self, name, argv, env):
        log = open(self.log_dir / f"{name}.log", "wb")
        process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, cwd=self.log_dir)
        log.close()
        self.processes.append(process)
        return process

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)


@pytest.fixture
def daemons(tmp_path):
    d = Daemons(tmp_path)
    yield d
    d.stop()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Parquet messages (every 1000th damaged) and their key; and others as base64 lines, with
    their key in lines.b64.key."""
    sys.path.insert(0, str(EXAMPLES))
    from bulk_decrypt import make_dataset as make_lines
    from spark_dataframe import make_dataset

    root = tmp_path_factory.mktemp("cluster-data")
    key = make_dataset(str(root / "parquet"), MESSAGES)
    (root / "key").write_bytes(bytes(key))
    make_lines(str(root / "lines.b64"), MESSAGES, corrupt_every=1000)
    return root


def run_example(script, *args):
    out = subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, args)], env=loopback_env(),
                         capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def check_counts(out):
    assert f"{MESSAGES} messages: {MESSAGES - MESSAGES // 1000} decrypted, {MESSAGES // 1000} failed" in out, out


def check_text_output(directory):
    """Every output line ends with a newline (so that `cat` of the parts keeps them apart), and
    there is one line per message."""
    parts = sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith((".", "_")))
    data = b"".join(p.read_bytes() for p in parts)
    assert all(p.read_bytes().endswith(b"\n") for p in parts if p.stat().st_size)
    lines = data.splitlines()
    assert len(lines) == MESSAGES
    assert sum(line.startswith(b"error\t") for line in lines) == MESSAGES // 1000


def spark_class():
    pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("no Java (java on PATH or JAVA_HOME): the Spark cluster test needs Java 17 or later")
    return os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-class")


def test_spark_standalone_cluster(daemons, dataset, tmp_path):
    spark_class_path = spark_class()
    env = loopback_env()
    port = free_port()
    master_url = f"spark://{LOOPBACK}:{port}"
    master = daemons.start("master", [spark_class_path, "org.apache.spark.deploy.master.Master", "--host", LOOPBACK,
                                      "--port", str(port), "--webui-port", str(free_port())], env)
    wait_for_port(port, master, "the Spark master")
    worker_port = free_port()
    worker = daemons.start("worker", [spark_class_path, "org.apache.spark.deploy.worker.Worker", master_url,
                                      "--host", LOOPBACK, "--port", str(worker_port),
                                      "--webui-port", str(free_port()), "--cores", "2", "--memory", "2g",
                                      "--work-dir", str(tmp_path / "work")], env)
    wait_for_port(worker_port, worker, "the Spark worker")

    out = run_example("spark_dataframe.py", "decrypt", dataset / "parquet", dataset / "key", tmp_path / "out",
                      "--master", master_url)
    check_counts(out)
    # The same job on the text layout: one line per result, each ending with a newline.
    out = run_example("spark_decrypt.py", dataset / "lines.b64", dataset / "lines.b64.key", tmp_path / "text",
                      "--master", master_url)
    check_counts(out)
    check_text_output(tmp_path / "text")


def test_spark_local_mode_dataframe(dataset, tmp_path):
    """Local mode warms the JVM's Parquet and Arrow paths with a file of its own before the job."""
    spark_class()
    out = run_example("spark_dataframe.py", "decrypt", dataset / "parquet", dataset / "key", tmp_path / "out",
                      "--master", "local[2]")
    check_counts(out)


def test_dask_distributed_cluster(daemons, dataset, tmp_path):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    env = loopback_env()
    port = free_port()
    dask = [sys.executable, "-m", "dask"]
    scheduler = daemons.start("scheduler", dask + ["scheduler", "--host", LOOPBACK, "--port", str(port),
                                                   "--no-dashboard"], env)
    wait_for_port(port, scheduler, "the Dask scheduler")
    address = f"tcp://{LOOPBACK}:{port}"
    daemons.start("workers", dask + ["worker", address, "--host", LOOPBACK, "--nworkers", "2", "--nthreads", "1",
                                     "--no-dashboard", "--memory-limit", "2GB",
                                     "--local-directory", str(tmp_path / "work")], env)
    from distributed import Client

    with Client(address, timeout=START_TIMEOUT) as client:
        client.wait_for_workers(2, timeout=START_TIMEOUT)

    out = run_example("dask_dataframe.py", "decrypt", dataset / "parquet", dataset / "key", tmp_path / "out",
                      "--scheduler", address)
    check_counts(out)
    out = run_example("dask_decrypt.py", dataset / "lines.b64", dataset / "lines.b64.key", tmp_path / "text",
                      "--scheduler", address)
    check_counts(out)
    check_text_output(tmp_path / "text")
