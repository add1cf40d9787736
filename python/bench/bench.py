"""Side-by-side measurements of the sixpgp Python package (a benchmark script, not a test).

It installs nothing. Run it in a virtual environment that has sixpgp and, for the peers and
engines, pysequoia, python-gnupg (with gpg 2.2 or later on PATH), pyspark (with Java 17 or
later) and dask[distributed]:

    python3 -m venv /tmp/bench && . /tmp/bench/bin/activate
    pip install ./python pysequoia python-gnupg pyspark "dask[distributed]"
    python python/bench/bench.py [--small 10000] [--gnupg 10000] [--engines 500000] [--stream-mib 1024]

A peer or engine that is not installed is reported as such and skipped; `--small 0`,
`--engines 0` or `--stream-mib 0` skips a section. Run from the repository: the Rust reference rate comes from
`cargo run --release --example bulk_decrypt` and the stream reference from a release `sixsop`.

1. Small messages: the same N messages of 100 octets to one v6 X25519 key, decrypted with
   sixpgp (a `sixpgp.decrypt` loop, a `Decryptor.decrypt` loop, `decrypt_all` on one thread and
   on every core) and with pysequoia (its `decrypt` loop); N messages of the same size to a gpg
   cv25519 key decrypted with python-gnupg in a loop, as the motivating user did. Each rate but
   python-gnupg's is the best of three passes, as the Rust example reports its own.
2. Engines: one file of base64 messages (one a line), decrypted by the Rust example, by
   python/examples/bulk_decrypt.py, and by the Spark and Dask examples in local mode; each as a
   ratio of the Rust rate, with the wall time including the engine's start.
3. Streams: a file of random data through encrypt_stream and decrypt_stream, and through sixsop,
   with the peak memory of each process.
"""

import argparse
import base64
import os
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import sixpgp

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "python" / "examples"
CORES = os.cpu_count() or 1


def rate(count, seconds):
    return count / seconds if seconds > 0 else float("inf")


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def best_of_3(fn, *args):
    """The fastest of three runs (as the Rust example reports it), and its output."""
    return min((timed(fn, *args) for _ in range(3)), key=lambda r: r[0])


def small_messages(n, gnupg_n, rows):
    key = sixpgp.Key.generate("Bench <bench@example.org>")
    messages = [sixpgp.encrypt(bytes([i % 251]) * 100, key.cert, armor=False) for i in range(n)]
    expected = [bytes([i % 251]) * 100 for i in range(n)]

    def check(results):
        assert results == expected, "a decryption went wrong"

    secs, out = best_of_3(lambda: [sixpgp.decrypt(m, key).data for m in messages])
    check(out)
    rows.append(("sixpgp `decrypt` loop", 1, rate(n, secs)))
    decryptor = sixpgp.Decryptor(key, threads=1)
    secs, out = best_of_3(lambda: [decryptor.decrypt(m) for m in messages])
    check(out)
    rows.append(("sixpgp `Decryptor.decrypt` loop", 1, rate(n, secs)))
    secs, out = best_of_3(decryptor.decrypt_all, messages)
    check(out)
    rows.append(("sixpgp `decrypt_all`, 1 thread", 1, rate(n, secs)))
    secs, out = best_of_3(sixpgp.Decryptor(key).decrypt_all, messages)
    check(out)
    rows.append((f"sixpgp `decrypt_all`, {CORES} threads", CORES, rate(n, secs)))

    try:
        import pysequoia
    except ImportError:
        rows.append(("pysequoia `decrypt` loop", 1, "not installed"))
    else:
        if hasattr(pysequoia, "Tsk"):
            pq_decryptor = pysequoia.Tsk.from_bytes(bytes(key)).decryptor()
        else:  # before 0.1.35
            pq_decryptor = pysequoia.Cert.from_bytes(bytes(key)).secrets.decryptor()
        secs, out = best_of_3(lambda: [pysequoia.decrypt(m, decryptor=pq_decryptor).bytes for m in messages])
        check(out)
        rows.append((f"pysequoia {version('pysequoia')} `decrypt` loop", 1, rate(n, secs)))

    rows.append(gnupg_loop(gnupg_n))
    return rows, key, messages


def rust_small(key, messages, tmp):
    """The Rust example's rates on the same binary messages: one thread and every core."""
    data = os.path.join(tmp, "small.b64")
    with open(data, "w") as f:
        f.writelines(base64.b64encode(m).decode() + "\n" for m in messages)
    with open(data + ".key", "wb") as f:
        f.write(bytes(key))
    rates = []
    for threads in (1, CORES):
        out = cargo("run", "-q", "--release", "--example", "bulk_decrypt", "--", "file", data, data + ".key",
                    str(threads))
        rates.append(float(re.search(r"binary: (\d+) messages/s", out).group(1)))
    return rates


def version(dist):
    try:
        from importlib.metadata import version as v

        return v(dist)
    except Exception:
        return "?"


def gnupg_loop(n):
    label = "python-gnupg `decrypt` loop (gpg, cv25519)"
    try:
        import gnupg
    except ImportError:
        return (label, 1, "not installed")
    if not shutil.which("gpg"):
        return (label, 1, "gpg not installed")
    home = tempfile.mkdtemp(prefix="bench-gnupg-")
    try:
        gpg = gnupg.GPG(gnupghome=home)
        run = lambda *a: subprocess.run(["gpg", "--homedir", home, "--batch", *a], check=True, capture_output=True)
        run("--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", "Bench <gpg@example.org>",
            "future-default", "default", "never")
        # gpg --multifile encrypts the data set in one process (one gpg per message takes minutes).
        files = []
        for i in range(n):
            path = os.path.join(home, f"m{i}")
            with open(path, "wb") as f:
                f.write(bytes([i % 251]) * 100)
            files.append(path)
        for start in range(0, n, 1000):
            run("--trust-model", "always", "-r", "gpg@example.org", "--encrypt", "--multifile",
                *files[start:start + 1000])
        messages = [open(p + ".gpg", "rb").read() for p in files]
        gpg.decrypt(messages[0])  # starts the agent
        secs, out = timed(lambda: [gpg.decrypt(m).data for m in messages])
        assert all(o == bytes([i % 251]) * 100 for i, o in enumerate(out)), "gpg decryption failed"
        gpg_version = run("--version").stdout.split(b"\n")[0].decode().split()[-1]
        return (f"python-gnupg {version('python-gnupg')} `decrypt` loop (gpg {gpg_version}, cv25519)", 1,
                rate(n, secs))
    finally:
        subprocess.run(["gpgconf", "--homedir", home, "--kill", "gpg-agent"], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def cargo(*args):
    return subprocess.run(["cargo", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def engines(n, tmp, rows):
    data = os.path.join(tmp, "messages.b64")
    cargo("run", "-q", "--release", "--example", "bulk_decrypt", "--", "make", data, str(n), "lines")
    out = cargo("run", "-q", "--release", "--example", "bulk_decrypt", "--", "file", data)
    rust = float(re.search(r"base64-line messages on \d+ threads: (\d+) messages/s", out).group(1))
    rows.append((f"Rust `examples/bulk_decrypt`, {CORES} threads (best of 3, in memory)", rust, None, None))

    def engine(label, script, *args, needs=None):
        if needs:
            try:
                __import__(needs)
            except ImportError:
                rows.append((label, "not installed", None, None))
                return
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            rows.append((label, "failed: " + proc.stderr.strip().splitlines()[-1], None, None))
            return
        counted = re.search(r"(\d+) messages", proc.stdout)
        assert counted and int(counted.group(1)) == n, proc.stdout
        job = re.search(r"job ([\d.]+) s", proc.stdout)
        job_rate = rate(n, float(job.group(1))) if job else rate(n, float(re.search(r"in ([\d.]+) s", proc.stdout).group(1)))
        rows.append((label, job_rate, rate(n, wall), wall))

    engine("Python `examples/bulk_decrypt.py` (`decrypt_all`, every core)", "bulk_decrypt.py", data)
    engine("Spark `local[*]` (`examples/spark_decrypt.py`)", "spark_decrypt.py", data, data + ".key",
           os.path.join(tmp, "spark-out"), needs="pyspark")
    engine("Dask `LocalCluster` (`examples/dask_decrypt.py`)", "dask_decrypt.py", data, data + ".key",
           os.path.join(tmp, "dask-out"), needs="dask.distributed")
    return rust


STREAM = """
import resource, sys, time, sixpgp
mode, key_path, src, dst = sys.argv[1:5]
start = time.perf_counter()
with open(src, "rb") as i, open(dst, "wb") as o:
    if mode == "encrypt":
        sixpgp.encrypt_stream(i, o, sixpgp.Key.from_bytes(open(key_path, "rb").read()).cert, armor=False)
    else:
        sixpgp.decrypt_stream(i, o, sixpgp.Key.from_bytes(open(key_path, "rb").read()))
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def streams(mib, tmp, rows):
    cargo("build", "-q", "--release", "-p", "sixpgp-sop", "--bin", "sixsop")
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    sixsop = str((target if target.is_absolute() else REPO / target) / "release" / "sixsop")
    key = os.path.join(tmp, "stream.key")
    cert = key + ".cert"
    plain, enc, dec = (os.path.join(tmp, n) for n in ("plain", "enc", "dec"))
    subprocess.run([sixsop, "generate-key", "Stream <stream@example.org>"], stdout=open(key, "wb"), check=True)
    subprocess.run([sixsop, "extract-cert"], stdin=open(key, "rb"), stdout=open(cert, "wb"), check=True)
    with open(plain, "wb") as f:
        for _ in range(mib):
            f.write(os.urandom(1 << 20))

    def sop(*args, src, dst):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        with open(src, "rb") as i, open(dst, "wb") as o:
            subprocess.run([sixsop, *args], stdin=i, stdout=o, check=True)
        secs = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        return secs, (peak // 1024 if peak > before else None)

    def py(mode, src, dst):
        out = subprocess.run([sys.executable, "-c", STREAM, mode, key, src, dst], check=True, capture_output=True,
                             text=True).stdout.split()
        return float(out[0]), int(out[1])

    # sixsop first, so that its children's peak is not hidden by a larger Python one.
    s_enc = sop("encrypt", "--no-armor", cert, src=plain, dst=enc)
    s_dec = sop("decrypt", key, src=enc, dst=dec)
    p_enc = py("encrypt", plain, enc)
    p_dec = py("decrypt", enc, dec)
    assert os.path.getsize(dec) == mib << 20
    rows.append(("encrypt", s_enc, p_enc))
    rows.append(("decrypt", s_dec, p_dec))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--gnupg", type=int, default=10_000)
    parser.add_argument("--engines", type=int, default=500_000)
    parser.add_argument("--stream-mib", type=int, default=1024)
    parser.add_argument("--tmp", default=None, help="where the data sets go (default: a temporary directory)")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"sixpgp {sixpgp.__version__}, Python {sys.version.split()[0]}, {CORES} cores, "
          f"load average {load[0]:.1f} at the start")

    if args.small:
        small, key, messages = small_messages(args.small, args.gnupg, [])
        with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
            rust1, rust_all = rust_small(key, messages, tmp)
        small[4:4] = [("Rust `Decryptor::decrypt_all`, 1 thread (best of 3)", 1, rust1),
                      (f"Rust `Decryptor::decrypt_all`, {CORES} threads (best of 3)", CORES, rust_all)]
        base = small[2][2]
        gnupg = next(r[2] for r in small if r[0].startswith("python-gnupg"))
        print(f"\n### {args.small} messages of 100 octets (python-gnupg: {args.gnupg})\n")
        print("| decryption | threads | messages/s | per core, vs `decrypt_all` on 1 thread |")
        print("|---|---|---|---|")
        for label, threads, r in small:
            if isinstance(r, str):
                print(f"| {label} | {threads} | {r} | |")
            else:
                print(f"| {label} | {threads} | {r:,.0f} | {r / threads / base:.3g}x |")
        pq = next((r[2] for r in small if r[0].startswith("pysequoia")), None)
        if not isinstance(pq, str) and pq:
            print(f"\n`decrypt_all` on 1 thread / pysequoia: {base / pq:.2f}x")
        if not isinstance(gnupg, str):
            print(f"`decrypt_all` on 1 thread / python-gnupg: {base / gnupg:.0f}x")
        print(f"`decrypt_all` on {CORES} threads / on 1 thread: {small[3][2] / base:.2f}x")
        print(f"`decrypt_all` on 1 thread / Rust on 1 thread: {base / rust1:.2f}x; "
              f"on {CORES} threads: {small[3][2] / rust_all:.2f}x")

    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        if args.engines:
            rows = []
            rust = engines(args.engines, tmp, rows)
            print(f"\n### {args.engines:,} base64 messages from one file, {CORES} cores\n")
            print("| job | messages/s (job) | vs Rust | messages/s with start | vs Rust | wall time with start |")
            print("|---|---|---|---|---|---|")
            for label, r, with_start, wall in rows:
                if isinstance(r, str):
                    print(f"| {label} | {r} | | | | |")
                elif with_start is None:
                    print(f"| {label} | {r:,.0f} | 1.00x | | | |")
                else:
                    print(f"| {label} | {r:,.0f} | {r / rust:.2f}x | {with_start:,.0f} | {with_start / rust:.2f}x "
                          f"| {wall:.1f} s |")
        if args.stream_mib:
            rows = []
            streams(args.stream_mib, tmp, rows)
            print(f"\n### {args.stream_mib} MiB of random data, binary, file to file ({tmp})\n")
            print("| operation | sixsop | peak MiB | Python stream | peak MiB | Python / sixsop |")
            print("|---|---|---|---|---|---|")
            for op, (s, s_mem), (p, p_mem) in rows:
                print(f"| {op} | {s:.2f} s | {s_mem if s_mem is not None else '?'} | {p:.2f} s | {p_mem} "
                      f"| {p / s:.2f}x |")
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f} at the end")


if __name__ == "__main__":
    sys.exit(main())
