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


def test_file_object_errors_keep_their_cause(tmp_path, alice):
    message = sixpgp.encrypt(b"x" * 3_000_000, alice.cert)

    class Failing:
        def __init__(self, data, good_reads):
            self.data, self.left = io.BytesIO(data), good_reads

        def read(self, n):
            if self.left == 0:
                raise OSError(5, "device gone")
            self.left -= 1
            return self.data.read(n)

    for good_reads in (0, 1, 3):
        with pytest.raises(OSError) as e:
            sixpgp.decrypt_stream(Failing(message, good_reads), io.BytesIO(), alice)
        assert e.value.errno == 5
    with pytest.raises(OSError) as e:
        sixpgp.encrypt_stream(Failing(b"y" * 3_000_000, 1), io.BytesIO(), alice.cert)
    assert e.value.errno == 5
    # An I/O error of the library's own (no Python file object involved) is an OSError too.
    with pytest.raises(FileNotFoundError):
        sixpgp.decrypt_stream(tmp_path / "missing.pgp", tmp_path / "out", alice)
    with pytest.raises(FileNotFoundError):
        sixpgp.decrypt_stream(io.BytesIO(message), tmp_path / "no-such-dir" / "out", alice)


def test_read_may_return_any_buffer(alice):
    message = sixpgp.encrypt(b"plaintext " * 300_000, alice.cert, armor=False)

    class Source:
        def __init__(self, data, kind):
            self.data, self.kind = io.BytesIO(data), kind

        def read(self, n):
            return self.kind(self.data.read(n))

    for kind in (bytes, bytearray, memoryview):
        out = io.BytesIO()
        sixpgp.decrypt_stream(Source(message, kind), out, alice)
        assert out.getvalue() == b"plaintext " * 300_000
        encrypted = io.BytesIO()
        sixpgp.encrypt_stream(Source(b"abc" * 1000, kind), encrypted, alice.cert)
        assert sixpgp.decrypt(encrypted.getvalue(), alice).data == b"abc" * 1000


def test_stream_arguments_are_checked_up_front(tmp_path, alice):
    message = sixpgp.encrypt(b"x", alice.cert)
    with pytest.raises(TypeError, match="src: .*binary file object or a path.*sixpgp.decrypt"):
        sixpgp.decrypt_stream(message, io.BytesIO(), alice)
    with pytest.raises(TypeError, match="dst: "):
        sixpgp.encrypt_stream(io.BytesIO(b"x"), bytearray(), alice.cert)
    with pytest.raises(TypeError, match="'rb'"):
        sixpgp.decrypt_stream(io.StringIO("text"), io.BytesIO(), alice)
    with pytest.raises(TypeError, match="'wb'"):
        sixpgp.decrypt_stream(io.BytesIO(message), io.StringIO(), alice)
    path = tmp_path / "text.asc"
    path.write_bytes(message)
    with open(path, "r") as text, pytest.raises(TypeError, match="'rb'"):
        sixpgp.decrypt_stream(text, io.BytesIO(), alice)

    class ReadsText:
        def read(self, n):
            return "text"

    with pytest.raises(TypeError, match="'rb'"):
        sixpgp.decrypt_stream(ReadsText(), io.BytesIO(), alice)
    with pytest.raises(TypeError, match="src: "):
        sixpgp.decrypt_stream(42, io.BytesIO(), alice)


def test_streams_take_paths(tmp_path, alice):
    plain, encrypted, decrypted = tmp_path / "plain", tmp_path / "enc.pgp", tmp_path / "dec"
    plain.write_bytes(b"on disk\n" * 100_000)
    assert sixpgp.encrypt_stream(plain, str(encrypted), alice.cert, signer=alice) == plain.stat().st_size
    [verdict] = sixpgp.decrypt_stream(str(encrypted), decrypted, alice, verify=alice.cert)
    assert verdict.good and decrypted.read_bytes() == plain.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dec", "enc.pgp", "plain"]


def test_decryption_to_a_path_appears_only_once_authenticated(tmp_path, alice, bob):
    data = bytes(range(256)) * 40_000  # several chunks
    message = bytearray(sixpgp.encrypt(data, alice.cert, armor=False))
    message[len(message) // 2] ^= 1
    out = tmp_path / "out"
    with pytest.raises(sixpgp.DecryptionFailed):
        sixpgp.decrypt_stream(io.BytesIO(message), out, alice)
    truncated = sixpgp.encrypt(data, alice.cert, armor=False)[:-1000]
    with pytest.raises(sixpgp.Malformed):
        sixpgp.decrypt_stream(io.BytesIO(truncated), out, alice)
    # Unsigned, and a signature was required.
    unsigned = sixpgp.encrypt(data, alice.cert)
    with pytest.raises(sixpgp.NoGoodSignature) as e:
        sixpgp.decrypt_stream(io.BytesIO(unsigned), out, alice, verify=bob.cert, require_signature=True)
    assert e.value.verifications == []
    assert list(tmp_path.iterdir()) == []  # neither the path nor a temporary file
    # An existing file is replaced only by an authenticated message.
    out.write_bytes(b"previous")
    with pytest.raises(sixpgp.DecryptionFailed):
        sixpgp.decrypt_stream(io.BytesIO(message), out, alice)
    assert out.read_bytes() == b"previous"
    signed = sixpgp.encrypt(data, alice.cert, signer=bob)
    [verdict] = sixpgp.decrypt_stream(io.BytesIO(signed), out, alice, verify=bob.cert, require_signature=True)
    assert verdict.good and out.read_bytes() == data
    assert out.stat().st_mode & 0o077 == 0  # plaintext: readable by the owner only
