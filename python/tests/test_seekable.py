"""EncryptedFile: a seekable, read-only file over an encrypted file, with the standard library's
file consumers (tarfile, zipfile, shutil, io.BufferedReader)."""

import io
import random
import shutil
import tarfile
import zipfile

import pytest

import sixpgp


def encrypted_file(tmp_path, data, key, name="msg.pgp"):
    path = tmp_path / name
    path.write_bytes(sixpgp.encrypt(data, key.cert, armor=False))
    return path


def test_reads_and_seeks_match_the_plaintext(tmp_path, bob):
    data = random.Random(1).randbytes(1_500_000)
    path = encrypted_file(tmp_path, data, bob)
    with sixpgp.EncryptedFile(path, bob) as f:
        assert f.readable() and f.seekable() and not f.writable()
        rnd = random.Random(2)
        for _ in range(50):
            offset, n = rnd.randrange(len(data)), rnd.randrange(1, 70_000)
            assert f.seek(offset) == offset
            assert f.read(n) == data[offset : offset + n]
            assert f.tell() == min(offset + n, len(data))
        assert f.seek(-10, 2) == len(data) - 10
        assert f.read() == data[-10:]
        assert f.read(5) == b""
        f.seek(0)
        buf = bytearray(1000)
        assert f.readinto(buf) == 1000 and bytes(buf) == data[:1000]
        assert f.finish() == len(data)
        assert f.closed


def test_standard_library_consumers(tmp_path, bob):
    data = bytes(range(256)) * 5000
    path = encrypted_file(tmp_path, data, bob)
    with sixpgp.EncryptedFile(path, bob) as f:
        out = io.BytesIO()
        shutil.copyfileobj(f, out, 65536)
        assert out.getvalue() == data
    raw = sixpgp.EncryptedFile(path, bob)
    with io.BufferedReader(raw, buffer_size=8192) as f:
        f.seek(300_000)
        assert f.read(1000) == data[300_000:301_000]
        assert f.peek(1)[:1] == data[301_000:301_001]
    assert raw.closed


def test_one_member_of_an_encrypted_tar(tmp_path, bob):
    tar_bytes = io.BytesIO()
    members = {f"dir/file{i}.bin": random.Random(i).randbytes(100_000 + i) for i in range(8)}
    with tarfile.open(fileobj=tar_bytes, mode="w") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    path = encrypted_file(tmp_path, tar_bytes.getvalue(), bob, "archive.tar.pgp")
    with sixpgp.EncryptedFile(path, bob) as f, tarfile.open(fileobj=f, mode="r:") as tar:
        member = tar.extractfile("dir/file5.bin")
        assert member.read() == members["dir/file5.bin"]


def test_a_member_of_an_encrypted_zip(tmp_path, bob):
    zip_bytes = io.BytesIO()
    with zipfile.ZipFile(zip_bytes, "w") as z:
        for i in range(5):
            z.writestr(f"part{i}.txt", f"part {i}\n".encode() * 10_000)
    path = encrypted_file(tmp_path, zip_bytes.getvalue(), bob, "archive.zip.pgp")
    with sixpgp.EncryptedFile(path, bob) as f, zipfile.ZipFile(f) as z:
        assert z.read("part3.txt") == b"part 3\n" * 10_000


def test_errors(tmp_path, alice, bob):
    data = b"y" * 600_000
    path = encrypted_file(tmp_path, data, bob)
    with pytest.raises(sixpgp.NoDecryptionKey):
        sixpgp.EncryptedFile(path, alice)
    armored = tmp_path / "armored.asc"
    armored.write_bytes(sixpgp.encrypt(data, bob.cert))
    with pytest.raises(sixpgp.InvalidArgument):
        sixpgp.EncryptedFile(armored, bob)
    # Truncated: reads of the intact start succeed, the end check fails.
    cut = tmp_path / "cut.pgp"
    cut.write_bytes(path.read_bytes()[:-100])
    try:
        f = sixpgp.EncryptedFile(cut, bob)
    except sixpgp.Error:
        return
    assert f.read(1000) == data[:1000]
    with pytest.raises(sixpgp.Error):
        f.finish()
    f = sixpgp.EncryptedFile(path, bob)
    f.close()
    with pytest.raises(ValueError):
        f.read(1)


def test_extract_member_example():
    import subprocess
    import sys

    from conftest import PYTHON_DIR

    out = subprocess.run([sys.executable, str(PYTHON_DIR / "examples" / "extract_member.py")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "extracted backup/file13.txt (400000 octets)" in out.stdout
