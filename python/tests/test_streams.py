"""encrypt_stream and decrypt_stream over file objects: round trips, errors, bounded memory."""

import hashlib
import io
import subprocess
import sys
import textwrap

import pytest

import sixpgp


@pytest.mark.parametrize("armor", [True, False])
def test_stream_round_trip(alice, bob, armor):
    data = bytes(range(256)) * 20_000  # 5 MiB: several chunks
    encrypted = io.BytesIO()
    assert sixpgp.encrypt_stream(io.BytesIO(data), encrypted, bob.cert, signer=alice, armor=armor) == len(data)
    assert encrypted.getvalue().startswith(b"-----BEGIN PGP MESSAGE-----") == armor
    assert sixpgp.decrypt(encrypted.getvalue(), bob).data == data
    out = io.BytesIO()
    [verdict] = sixpgp.decrypt_stream(io.BytesIO(encrypted.getvalue()), out, bob, verify=alice.cert)
    assert verdict.good and out.getvalue() == data


def test_stream_on_files(tmp_path, alice):
    plain, encrypted, decrypted = tmp_path / "plain", tmp_path / "enc", tmp_path / "dec"
    plain.write_bytes(b"file contents\n" * 1000)
    with open(plain, "rb") as src, open(encrypted, "wb") as dst:
        sixpgp.encrypt_stream(src, dst, passwords="pw", armor=False)
    with open(encrypted, "rb") as src, open(decrypted, "wb") as dst:
        assert sixpgp.decrypt_stream(src, dst, passwords=["pw"]) == []
    assert decrypted.read_bytes() == plain.read_bytes()


def test_stream_errors(alice, bob):
    message = sixpgp.encrypt(b"x" * 100_000, alice.cert, armor=False)
    with pytest.raises(sixpgp.NoDecryptionKey):
        sixpgp.decrypt_stream(io.BytesIO(message), io.BytesIO(), bob)
    with pytest.raises(sixpgp.Malformed):
        sixpgp.decrypt_stream(io.BytesIO(message[:-100]), io.BytesIO(), alice)

    class Broken(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            raise OSError("disk full")

    # The file object's own exception comes through unchanged.
    with pytest.raises(OSError, match="disk full"):
        sixpgp.encrypt_stream(io.BytesIO(b"data"), Broken(), alice.cert)
    with pytest.raises(OSError, match="disk full"):
        sixpgp.decrypt_stream(io.BytesIO(message), Broken(), alice)
    with pytest.raises(TypeError):
        sixpgp.decrypt_stream(io.StringIO("text"), io.BytesIO(), alice)


BOUNDED = textwrap.dedent(
    """
    import hashlib, io, resource, sys
    import sixpgp

    SIZE = int(sys.argv[1])

    class Zeros(io.RawIOBase):
        def __init__(self, n):
            self.left = n
        def readable(self):
            return True
        def readinto(self, b):
            n = min(len(b), self.left)
            b[:n] = bytes(n)
            self.left -= n
            return n

    class Sink(io.RawIOBase):
        def __init__(self):
            self.hash, self.n = hashlib.sha256(), 0
        def writable(self):
            return True
        def write(self, b):
            self.hash.update(b)
            self.n += len(b)
            return len(b)

    key = sixpgp.Key.generate("Stream <stream@example.org>")
    path = sys.argv[2]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(path, "wb") as f:
        sixpgp.encrypt_stream(io.BufferedReader(Zeros(SIZE)), f, key.cert, armor=False)
    sink = Sink()
    with open(path, "rb") as f:
        sixpgp.decrypt_stream(f, sink, key)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert sink.n == SIZE and sink.hash.digest() == hashlib.sha256(bytes(SIZE)).digest()
    print((after - before) // 1024)
    """
)


def test_streams_at_bounded_memory(tmp_path):
    """256 MiB through encrypt_stream and decrypt_stream grows the peak RSS by far less."""
    size = 256 << 20
    out = subprocess.run(
        [sys.executable, "-c", BOUNDED, str(size), str(tmp_path / "big.pgp")],
        check=True, capture_output=True, text=True,
    )
    growth_mib = int(out.stdout.strip())
    assert growth_mib < 64, f"peak RSS grew by {growth_mib} MiB for a {size >> 20} MiB stream"
