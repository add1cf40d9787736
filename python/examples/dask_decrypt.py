"""Bulk decryption on Dask: a file of base64 messages (one a line) decrypted by partition, one
sixpgp.Decryptor per partition, results written as Dask writes text files, failures counted.

    python dask_decrypt.py                            # a LocalCluster, its own key and 20,000 demo messages
    python dask_decrypt.py INPUT KEY OUTPUT [--scheduler ADDRESS] [--partitions N] [--threads N]

INPUT and OUTPUT are paths or URLs the workers can read and write; KEY is a secret key file on
the client, sent to the workers with the tasks. Each output line is "ok<TAB>base64 plaintext"
or "error<TAB>exception". The workers need the sixpgp wheel installed.
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bulk_decrypt import batches, decrypt_lines, make_dataset, result_line  # noqa: E402


def decrypt_partition(lines, key_bytes, threads):
    """The function run on each partition: one Decryptor, lines decrypted a batch at a time."""
    import sixpgp

    decryptor = sixpgp.Decryptor(sixpgp.Key.from_bytes(key_bytes), threads=threads)
    out = []
    for batch in batches(lines):
        out.extend(result_line(r) for r in decrypt_lines(decryptor, batch))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", nargs="?")
    parser.add_argument("key", nargs="?")
    parser.add_argument("output", nargs="?")
    parser.add_argument("--scheduler", help="a scheduler address (default: a LocalCluster)")
    parser.add_argument("--partitions", type=int, default=None, help="default: two per worker core")
    parser.add_argument("--threads", type=int, default=1,
                        help="decryption threads per task (default 1: Dask runs a task per worker core)")
    parser.add_argument("--demo-count", type=int, default=20_000, help=argparse.SUPPRESS)
    args = parser.parse_args()

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
        import dask.bag as db
        from dask.distributed import Client, LocalCluster

        if args.scheduler:
            cluster, client = None, Client(args.scheduler)
        else:
            cluster = LocalCluster(host="127.0.0.1", threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
        try:
            client.upload_file(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bulk_decrypt.py"))
            started = time.perf_counter()
            cores = sum(client.nthreads().values())
            size = os.path.getsize(args.input) if os.path.exists(args.input) else 0
            parts = args.partitions or 2 * cores
            lines = db.read_text(args.input, blocksize=max(1 << 20, size // parts + 1) if size else "64MiB")
            results = lines.map_partitions(decrypt_partition, key, args.threads).persist()
            # Every line ends with a newline, the last of each part too: `cat out/*` keeps lines apart.
            results.to_textfiles(os.path.join(args.output, "*.part"), last_endline=True)
            failed = results.filter(lambda line: line.startswith("error")).count().compute()
            total = results.count().compute()
            done = time.perf_counter()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        print(f"{total} messages: {total - failed} decrypted, {failed} failed; output in {args.output}")
        print(f"job {done - started:.2f} s ({total / (done - started):.0f} messages/s); "
              f"with the cluster's start {done - start:.2f} s ({total / (done - start):.0f} messages/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
