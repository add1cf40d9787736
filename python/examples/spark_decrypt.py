"""Bulk decryption on Spark: a file of base64 messages (one a line) decrypted by partition, one
sixpgp.Decryptor per partition, results written as Spark writes text files, failures counted.

    python spark_decrypt.py                          # local[*], its own key and 20,000 demo messages
    python spark_decrypt.py INPUT KEY OUTPUT [--master URL] [--partitions N] [--threads N]

INPUT and OUTPUT are paths or URLs Spark reads and writes (hdfs://, s3a://, file://); KEY is a
secret key file on the driver, sent to the workers as a broadcast variable. Each output line is
"ok<TAB>base64 plaintext" or "error<TAB>exception".

The workers need the sixpgp wheel installed in their Python, and PYSPARK_PYTHON naming that
Python (set here to this interpreter when unset: right for local mode).
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bulk_decrypt import batches, decrypt_lines, make_dataset, result_line  # noqa: E402


def decrypt_partition(key_bytes, threads):
    """The function run on each partition: one Decryptor, lines decrypted a batch at a time."""

    def run(lines):
        import sixpgp

        decryptor = sixpgp.Decryptor(sixpgp.Key.from_bytes(key_bytes.value), threads=threads)
        for batch in batches(lines):
            for result in decrypt_lines(decryptor, batch):
                yield result_line(result)

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", nargs="?")
    parser.add_argument("key", nargs="?")
    parser.add_argument("output", nargs="?")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--partitions", type=int, default=None, help="default: Spark's parallelism")
    parser.add_argument("--threads", type=int, default=1,
                        help="decryption threads per task (default 1: Spark runs a task per core)")
    parser.add_argument("--demo-count", type=int, default=20_000, help=argparse.SUPPRESS)
    args = parser.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if args.master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode: loopback only

    with tempfile.TemporaryDirectory() as tmp:
        if args.input is None:
            args.input = os.path.join(tmp, "messages.b64")
            args.key = args.input + ".key"
            args.output = os.path.join(tmp, "out")
            make_dataset(args.input, args.demo_count, corrupt_every=1000)
            print(f"demo: {args.demo_count} messages (every 1000th damaged)")
        elif args.key is None or args.output is None:
            parser.error("INPUT, KEY and OUTPUT go together")
        with open(args.key, "rb") as f:
            key = f.read()

        start = time.perf_counter()
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master(args.master).appName("sixpgp bulk decrypt")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                 .getOrCreate())
        sc = spark.sparkContext
        sc.setLogLevel("ERROR")
        sc.addPyFile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bulk_decrypt.py"))
        try:
            started = time.perf_counter()
            lines = sc.textFile(args.input, minPartitions=args.partitions or sc.defaultParallelism)
            results = lines.mapPartitions(decrypt_partition(sc.broadcast(key), args.threads))
            results.saveAsTextFile(args.output)
            done = time.perf_counter()
            # Counted from the results as written: an accumulator updated inside a transformation
            # counts a retried task twice.
            counts = sc.textFile(args.output).map(lambda line: line.split("\t", 1)[0]).countByValue()
        finally:
            spark.stop()
        ok, failed = counts.get("ok", 0), counts.get("error", 0)
        total = ok + failed
        print(f"{total} messages: {ok} decrypted, {failed} failed; output in {args.output}")
        print(f"job {done - started:.2f} s ({total / (done - started):.0f} messages/s); "
              f"with Spark's start {done - start:.2f} s ({total / (done - start):.0f} messages/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
