"""The data-frame examples against the Rust example, in one run: one Parquet data set of
MESSAGES messages of 100 octets (default 500,000), decrypted by spark_dataframe.py (local[*])
and dask_dataframe.py (a LocalCluster), each between runs of
`cargo run --release --example bulk_decrypt MESSAGES` (the X25519 rate), and the ratios of
their job rates (and rates counting the engine's start) to the mean of the Rust rates around them;
with several rounds, the median ratio of each engine and its range.

    python bench/dataframe.py [MESSAGES] [--rounds N]

Run from the repository with the package and pyarrow, pyspark and dask[distributed] installed.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, os.path.join(PYTHON_DIR, "examples"))
from spark_dataframe import make_dataset  # noqa: E402


def run(argv):
    out = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        sys.exit(out.stdout + out.stderr)
    return out.stdout


def rust_rate(count):
    """The example's X25519 rate (it goes on to the post-quantum keys, which are not needed)."""
    with subprocess.Popen(["cargo", "run", "-q", "--release", "--example", "bulk_decrypt", str(count)],
                          stdout=subprocess.PIPE, text=True, cwd=REPO) as example:
        for line in example.stdout:
            match = re.match(r"default .*: (\d+) messages/s", line)
            if match:
                example.kill()
                return float(match.group(1))
    sys.exit("bulk_decrypt printed no rate")


def engine_rates(script, directory, key):
    out = run([sys.executable, os.path.join(PYTHON_DIR, "examples", script), "decrypt",
               os.path.join(directory, "in"), key, os.path.join(directory, "out-" + script)])
    job, with_start = re.findall(r"\((\d+) messages/s\)", out)
    return float(job), float(with_start)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("messages", type=int, nargs="?", default=500_000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        key = make_dataset(os.path.join(tmp, "in"), args.messages)
        key_path = os.path.join(tmp, "key")
        with open(key_path, "wb") as f:
            f.write(bytes(key))
        print(f"{args.messages} messages of 100 octets, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        rust = rust_rate(args.messages)
        print(f"rust bulk_decrypt: {rust:.0f} messages/s")
        ratios = {}
        for _ in range(args.rounds):
            for script in ("spark_dataframe.py", "dask_dataframe.py"):
                job, with_start = engine_rates(script, tmp, key_path)
                after = rust_rate(args.messages)
                reference = statistics.mean([rust, after])
                print(f"{script}: job {job:.0f} messages/s ({job / reference:.2f}x), with the engine's start "
                      f"{with_start:.0f} messages/s ({with_start / reference:.2f}x); rust around it "
                      f"{rust:.0f} and {after:.0f}; load {os.getloadavg()[0]:.1f}")
                ratios.setdefault(script, []).append((job / reference, with_start / reference))
                rust = after
        if args.rounds > 1:
            # Rates drift from run to run on a shared machine: the median of the rounds is the figure.
            for script, pairs in ratios.items():
                jobs, starts = zip(*pairs)
                print(f"{script}: median of {len(pairs)} rounds: job {statistics.median(jobs):.2f}x "
                      f"({min(jobs):.2f}-{max(jobs):.2f}x), with the engine's start "
                      f"{statistics.median(starts):.2f}x ({min(starts):.2f}-{max(starts):.2f}x)")


if __name__ == "__main__":
    main()
