"""A binary column of a dask.dataframe decrypted (or encrypted) through Arrow arrays
(`map_partitions` and sixpgp.dataframe): Parquet in, Parquet out, one Decryptor per partition,
no Python object per message.

    python dask_dataframe.py                      # a LocalCluster, its own key and 20,000 demo messages
    python dask_dataframe.py decrypt INPUT KEY OUTPUT [--column message] [--scheduler ADDRESS] [--threads N]
    python dask_dataframe.py encrypt INPUT CERT OUTPUT [--column value] [--scheduler ADDRESS] [--threads N]

The columns are as in spark_dataframe.py: decrypt replaces the message column by "plaintext"
(binary, null if the message failed) and "error" (string, null if it decrypted); encrypt
replaces the value column by "message". The data is read with pyarrow types
(dtype_backend="pyarrow"), so a partition's column reaches sixpgp as one Arrow array. The
workers need the sixpgp wheel and pyarrow installed.
"""

import argparse
import os
import sys
import tempfile
import time

import pyarrow.parquet as pq

import sixpgp
from sixpgp import dataframe

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spark_dataframe import count_results, make_dataset  # noqa: E402


def _import_job_modules():
    """What a worker's first task would otherwise import, dask.dataframe the slowest of them
    (docs/performance.md)."""
    import dask.dataframe  # noqa: F401
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import sixpgp.dataframe  # noqa: F401


def decrypt(source, key, output, column="message", threads=1):
    """The job: Parquet `source` → decrypted `column` → Parquet `output`."""
    import dask.dataframe as dd

    decryptor = sixpgp.Decryptor(key, threads=threads)
    df = dd.read_parquet(source, dtype_backend="pyarrow")
    meta = dataframe.decrypt_pandas(df._meta, decryptor, column)
    df.map_partitions(dataframe.decrypt_pandas, decryptor, column, meta=meta).to_parquet(output, write_index=False)


def encrypt(source, recipients, output, column="value", threads=1):
    """The job: Parquet `source` → `column` encrypted to `recipients` → Parquet `output`."""
    import dask.dataframe as dd

    encryptor = sixpgp.Encryptor(recipients, threads=threads)
    df = dd.read_parquet(source, dtype_backend="pyarrow")
    meta = dataframe.encrypt_pandas(df._meta, encryptor, column)
    df.map_partitions(dataframe.encrypt_pandas, encryptor, column, meta=meta).to_parquet(output, write_index=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", nargs="?", choices=["decrypt", "encrypt"])
    parser.add_argument("input", nargs="?")
    parser.add_argument("key", nargs="?")
    parser.add_argument("output", nargs="?")
    parser.add_argument("--column", help='default: "message" to decrypt, "value" to encrypt')
    parser.add_argument("--scheduler", help="a scheduler address (default: a LocalCluster)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per task (default 1: Dask runs a task per worker core)")
    parser.add_argument("--demo-count", type=int, default=20_000, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode and None in (args.input, args.key, args.output):
        parser.error("INPUT, KEY and OUTPUT go with the mode")

    with tempfile.TemporaryDirectory() as tmp:
        if args.mode is None:
            args.mode, args.input, args.output = "decrypt", os.path.join(tmp, "in"), os.path.join(tmp, "out")
            key = make_dataset(args.input, args.demo_count)
            print(f"demo: {args.demo_count} messages (every 1000th damaged)")
        else:
            with open(args.key, "rb") as f:
                data = f.read()
            key = sixpgp.Key.from_bytes(data) if args.mode == "decrypt" else sixpgp.Cert.from_bytes(data)

        start = time.perf_counter()
        from dask.distributed import Client, LocalCluster

        if args.scheduler:
            cluster, client = None, Client(args.scheduler)
        else:
            cluster = LocalCluster(host="127.0.0.1", threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
        try:
            # The job starts with every worker up (the cluster's, or at least one of a
            # scheduler's) and the job's modules imported in each, as Spark's example does.
            client.wait_for_workers(len(cluster.workers) if cluster is not None else 1)
            client.run(_import_job_modules)
            started = time.perf_counter()
            if args.mode == "decrypt":
                decrypt(args.input, key, args.output, args.column or "message", args.threads)
            else:
                encrypt(args.input, key, args.output, args.column or "value", args.threads)
            done = time.perf_counter()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        if args.mode == "decrypt":
            total, failed = count_results(args.output)
            print(f"{total} messages: {total - failed} decrypted, {failed} failed; output in {args.output}")
        else:
            total = pq.read_table(args.output, columns=["message"]).num_rows
            print(f"{total} values encrypted; output in {args.output}")
        print(f"job {done - started:.2f} s ({total / (done - started):.0f} messages/s); "
              f"with the cluster's start {done - start:.2f} s ({total / (done - start):.0f} messages/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
