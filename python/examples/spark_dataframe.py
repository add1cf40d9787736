"""A binary column of a Spark DataFrame decrypted (or encrypted) through Arrow batches
(`mapInArrow` and sixpgp.dataframe): Parquet in, Parquet out, one Decryptor per task, no Python
object per message.

    python spark_dataframe.py                     # local[*], its own key and 20,000 demo messages
    python spark_dataframe.py decrypt INPUT KEY OUTPUT [--column message] [--master URL] [--threads N]
    python spark_dataframe.py encrypt INPUT CERT OUTPUT [--column value] [--master URL] [--threads N]

decrypt: INPUT is Parquet with a binary column of messages (`--column`, default "message");
OUTPUT gets the other columns and "plaintext" (binary, null if the message failed) and "error"
(string, "ExceptionClass: message", null if it decrypted). KEY is a secret key file.
encrypt: the column (default "value") becomes "message", one message per value, to the
certificate (or key) in CERT. The demo makes its data, encrypts it with sixpgp.Encryptor,
damages every 1000th message, decrypts it with Spark and counts the failures from the output.

The workers need the sixpgp wheel and pyarrow installed in their Python, and PYSPARK_PYTHON
naming that Python (set here to this interpreter when unset: right for local mode).
"""

import argparse
import os
import pathlib
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

import sixpgp
from sixpgp import dataframe


def make_dataset(directory, count, corrupt_every=1000, files=4):
    """Writes `count` messages of 100 octets (to a new key) as Parquet files in `directory`,
    columns "id" and "message", every `corrupt_every`-th message damaged; returns the key."""
    key = sixpgp.Key.generate("Bulk <bulk@example.org>")
    os.makedirs(directory, exist_ok=True)
    encryptor = sixpgp.Encryptor(key.cert)
    per_file = -(-count // files)
    for n, start in enumerate(range(0, count, per_file)):
        ids = list(range(start, min(count, start + per_file)))
        values = pa.array([bytes([i % 251]) * 100 for i in ids], pa.binary())
        messages = dataframe.encrypt_array(encryptor, values).to_pylist()
        for j, i in enumerate(ids):
            if corrupt_every and i % corrupt_every == corrupt_every - 1:
                messages[j] = messages[j][:-20]
        table = pa.table({"id": pa.array(ids, pa.int64()), "message": pa.array(messages, pa.binary())})
        pq.write_table(table, os.path.join(directory, f"part-{n:03}.parquet"), row_group_size=10_000)
    return key


def count_results(directory):
    """(rows, failures) of a decryption's output, read back from its Parquet files."""
    table = pq.read_table(directory, columns=["error"])
    return table.num_rows, table.num_rows - table.column("error").null_count


def session(master, app):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (SparkSession.builder.master(master).appName(app)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false"))
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode: loopback only
        # Local mode's one JVM lives for one job and shares the cores with the Python workers
        # that decrypt: its optimising (C2) compiler would spend more CPU time compiling the
        # Parquet and Arrow paths than the job's JVM work takes (docs/performance.md).
        builder = builder.config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _pass_through(batches):
    """A mapInArrow function that only imports what the job's tasks will."""
    import sixpgp.dataframe  # noqa: F401

    yield from batches


def warm_up(spark, local):
    """Does once per session what its first job would otherwise pay for: one small Python task
    per core starts the executors' Python workers (modules imported, Spark's files on their
    path; Spark keeps them for the job's tasks), and in local mode a Parquet file of one binary
    value per core, read through `mapInArrow` and written again, loads and compiles the JVM's
    Parquet and Arrow code. (The file goes to a temporary directory of the driver, which only
    local mode's executors share.)"""
    cores = spark.sparkContext.defaultParallelism
    values = spark.range(0, cores, numPartitions=cores).selectExpr("id", "unhex(hex(id)) AS value")
    if not local:
        values.mapInArrow(_pass_through, values.schema).count()
        return
    with tempfile.TemporaryDirectory() as tmp:
        # file: URLs, so that a default file system from a Hadoop configuration is not used.
        source, output = (pathlib.Path(tmp, name).as_uri() for name in ("in", "out"))
        values.write.parquet(source)
        df = spark.read.parquet(source)
        df.mapInArrow(_pass_through, df.schema).write.parquet(output)


def decrypt(spark, source, key, output, column="message", threads=1):
    """The job: Parquet `source` → decrypted `column` → Parquet `output`."""
    decryptor = sixpgp.Decryptor(key, threads=threads)
    df = spark.read.parquet(source)
    schema = dataframe.decrypt_schema(df.schema, column)
    out = df.mapInArrow(lambda batches: dataframe.decrypt_batches(batches, decryptor, column), schema)
    out.write.mode("overwrite").parquet(output)


def encrypt(spark, source, recipients, output, column="value", threads=1):
    """The job: Parquet `source` → `column` encrypted to `recipients` → Parquet `output`."""
    encryptor = sixpgp.Encryptor(recipients, threads=threads)
    df = spark.read.parquet(source)
    schema = dataframe.encrypt_schema(df.schema, column)
    out = df.mapInArrow(lambda batches: dataframe.encrypt_batches(batches, encryptor, column), schema)
    out.write.mode("overwrite").parquet(output)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", nargs="?", choices=["decrypt", "encrypt"])
    parser.add_argument("input", nargs="?")
    parser.add_argument("key", nargs="?")
    parser.add_argument("output", nargs="?")
    parser.add_argument("--column", help='default: "message" to decrypt, "value" to encrypt')
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per task (default 1: Spark runs a task per core)")
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
        spark = session(args.master, f"sixpgp {args.mode}")
        # The session's start is not the job's: this starts the executors and their Python
        # workers, and warms the JVM's Parquet and Arrow paths (docs/performance.md).
        warm_up(spark, args.master.startswith("local"))
        started = time.perf_counter()
        try:
            if args.mode == "decrypt":
                decrypt(spark, args.input, key, args.output, args.column or "message", args.threads)
            else:
                encrypt(spark, args.input, key, args.output, args.column or "value", args.threads)
            done = time.perf_counter()
        finally:
            spark.stop()
        if args.mode == "decrypt":
            total, failed = count_results(args.output)
            print(f"{total} messages: {total - failed} decrypted, {failed} failed; output in {args.output}")
        else:
            total = pq.read_table(args.output, columns=["message"]).num_rows
            print(f"{total} values encrypted; output in {args.output}")
        print(f"job {done - started:.2f} s ({total / (done - started):.0f} messages/s); "
              f"with Spark's start {done - start:.2f} s ({total / (done - start):.0f} messages/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
