"""Decrypts a file of messages, one base64-encoded message a line, with one Decryptor on all
cores (Decryptor.decrypt_all), and prints the rate and the failures.

    python bulk_decrypt.py                      # makes a key and 20,000 demo messages, then decrypts
    python bulk_decrypt.py FILE [KEY] [--threads N] [--output OUT]
    python bulk_decrypt.py --make FILE COUNT    # writes a data set: FILE and its key FILE.key

KEY defaults to FILE.key (a secret key, armored or binary). The layout is that of the Rust
example's `make FILE COUNT lines` (examples/bulk_decrypt.rs), so either can make the data.
With --output, each line's result is written there: "ok<TAB>base64 plaintext" or
"error<TAB>exception".
"""

import argparse
import base64
import os
import sys
import tempfile
import time

import sixpgp

# Lines decrypted per decrypt_all call: bounds memory whatever the size of the file.
BATCH = 50_000


def make_dataset(path, count, corrupt_every=0):
    """Writes `count` messages of 100 octets to a new key, one base64 message a line, and the
    key to `path`.key. With `corrupt_every`, every that-many-th line is damaged (to show that
    failures are counted, not fatal)."""
    key = sixpgp.Key.generate("Bulk <bulk@example.org>")
    cert = key.cert
    with open(path + ".key", "wb") as f:
        f.write(bytes(key))
    with open(path, "w") as f:
        for i in range(count):
            message = sixpgp.encrypt(bytes([i % 251]) * 100, cert, armor=False)
            if corrupt_every and i % corrupt_every == corrupt_every - 1:
                message = message[:-20]
            f.write(base64.b64encode(message).decode() + "\n")
    return key


def decrypt_lines(decryptor, lines):
    """Decrypts base64 lines; yields, per line, the plaintext or the exception."""
    messages = []
    for line in lines:
        try:
            messages.append(base64.b64decode(line, validate=True))
        except ValueError:
            messages.append(b"")  # not base64: decrypt_all reports it as malformed
    return decryptor.decrypt_all(messages)


def result_line(result):
    """One output line for a result."""
    if isinstance(result, sixpgp.Error):
        return f"error\t{type(result).__name__}: {result}"
    return "ok\t" + base64.b64encode(result).decode()


def batches(lines, size=BATCH):
    batch = []
    for line in lines:
        line = line.strip()
        if line:
            batch.append(line)
            if len(batch) == size:
                yield batch
                batch = []
    if batch:
        yield batch


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?")
    parser.add_argument("key", nargs="?")
    parser.add_argument("--threads", type=int, default=None, help="default: every core")
    parser.add_argument("--output")
    parser.add_argument("--make", nargs=2, metavar=("FILE", "COUNT"))
    args = parser.parse_args()

    if args.make:
        make_dataset(args.make[0], int(args.make[1]))
        print(f"{args.make[1]} messages in {args.make[0]}, key in {args.make[0]}.key")
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        path = args.file
        if path is None:
            path = os.path.join(tmp, "messages.b64")
            make_dataset(path, 20_000, corrupt_every=1000)
            print(f"demo: 20,000 messages (every 1000th damaged) in {path}")
        key = sixpgp.Key.from_bytes(open(args.key or path + ".key", "rb").read())
        decryptor = sixpgp.Decryptor(key, threads=args.threads)
        out = open(args.output, "w") if args.output else None
        ok = failed = 0
        start = time.perf_counter()
        with open(path, "rb") as f:
            for batch in batches(f):
                for result in decrypt_lines(decryptor, batch):
                    if isinstance(result, sixpgp.Error):
                        failed += 1
                    else:
                        ok += 1
                    if out:
                        out.write(result_line(result) + "\n")
        elapsed = time.perf_counter() - start
        if out:
            out.close()
        total = ok + failed
        print(f"{total} messages in {elapsed:.2f} s: {total / elapsed:.0f} messages/s "
              f"({args.threads or os.cpu_count()} threads); {ok} decrypted, {failed} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
