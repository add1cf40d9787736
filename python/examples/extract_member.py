"""Extracts one member of an encrypted tar archive without decrypting the rest of it.

    python extract_member.py ARCHIVE.tar.pgp KEY MEMBER OUTPUT

ARCHIVE.tar.pgp is a binary (not armored) message, KEY a secret key file. Only the chunks
that hold the tar headers read on the way and the member's data are decrypted. With no
arguments it runs on a demo archive of its own.
"""

import io
import sys
import tarfile
import tempfile
import pathlib

import sixpgp


def extract(archive, key, member, output):
    with sixpgp.EncryptedFile(archive, key) as f, tarfile.open(fileobj=f, mode="r:") as tar:
        data = tar.extractfile(member).read()
    pathlib.Path(output).write_bytes(data)
    return len(data)


def demo():
    key = sixpgp.Key.generate("Demo <demo@example.org>")
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w") as tar:
        for i in range(20):
            content = (f"file {i}\n" * 50_000).encode()
            info = tarfile.TarInfo(f"backup/file{i:02}.txt")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    with tempfile.TemporaryDirectory() as tmp:
        archive = pathlib.Path(tmp) / "backup.tar.pgp"
        archive.write_bytes(sixpgp.encrypt(tar_bytes.getvalue(), key.cert, armor=False))
        out = pathlib.Path(tmp) / "file13.txt"
        n = extract(archive, key, "backup/file13.txt", out)
        assert out.read_bytes() == b"file 13\n" * 50_000
        print(f"extracted backup/file13.txt ({n} octets) from a {archive.stat().st_size}-octet archive")


if __name__ == "__main__":
    if len(sys.argv) == 1:
        demo()
    elif len(sys.argv) == 5:
        archive, key_path, member, output = sys.argv[1:]
        key = sixpgp.Key.from_bytes(pathlib.Path(key_path).read_bytes())
        print(extract(archive, key, member, output), "octets")
    else:
        sys.exit(__doc__)
