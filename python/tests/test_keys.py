"""Keys and certificates: generation for every profile, forms, inspection, pickling, locking."""

import datetime
import os
import pickle
import subprocess
import sys
import textwrap
import time

import pytest

import sixpgp


def test_profiles_are_those_of_sixsop():
    assert set(sixpgp.PROFILES) == {"default", "security", "pqc-encryption"}


def test_generated_key_forms_round_trip(profile_key):
    key = profile_key
    assert len(key.fingerprint) == 64 and key.fingerprint == key.cert.fingerprint
    assert key.user_ids == key.cert.user_ids and key.user_ids[0].startswith("Test <")
    assert sixpgp.Key.from_bytes(bytes(key)) == key
    assert sixpgp.Key.from_bytes(key.armor()) == key
    assert key.armor().startswith("-----BEGIN PGP PRIVATE KEY BLOCK-----")
    cert = key.cert
    assert cert.armor().startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----")
    assert sixpgp.Cert.from_bytes(bytes(cert)) == cert
    assert sixpgp.Cert.from_bytes(cert.armor()) == cert
    assert sixpgp.Cert.from_bytes(bytes(key)) == cert  # the public part of a secret key
    assert pickle.loads(pickle.dumps(key)) == key
    assert pickle.loads(pickle.dumps(cert)) == cert
    assert hash(cert) == hash(sixpgp.Cert.from_bytes(bytes(cert)))
    assert sixpgp.Cert.read_all(bytes(cert) + bytes(sixpgp.Key.generate("x").cert))[0] == cert


def test_cert_keys_describe_the_profile(profile_key):
    expected = {
        "default": ("Ed25519", "X25519"),
        "security": ("ML-DSA-65+Ed25519", "ML-KEM-768+X25519"),
        "pqc-encryption": ("Ed25519", "ML-KEM-768+X25519"),
    }[profile_key.user_ids[0].split("<")[1].split("@")[0]]
    primary, sub = profile_key.cert.keys
    assert (primary.algorithm, sub.algorithm) == expected
    assert primary.primary and not sub.primary
    assert "sign" in primary.flags and "encrypt-communications" in sub.flags
    assert primary.fingerprint == profile_key.fingerprint
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((now - primary.created).total_seconds()) < 600
    assert primary.expires is None and not primary.revoked and primary.problem is None


def test_expiring_key():
    key = sixpgp.Key.generate("Short <short@example.org>", validity=1)
    info = key.cert.keys[0]
    assert info.expires is not None
    assert (info.expires - info.created).total_seconds() == 1
    time.sleep(2.1)
    with pytest.raises(sixpgp.KeyUnusable) as e:
        sixpgp.encrypt(b"late", key.cert)
    assert e.value.fingerprint == key.fingerprint
    assert e.value.problem == "expired"
    assert key.cert.keys[0].problem == "expired"


def test_locked_key():
    key = sixpgp.Key.generate("Locked <locked@example.org>", password="secret")
    assert key.locked
    message = sixpgp.encrypt(b"for the locked key", key.cert)
    with pytest.raises(sixpgp.KeyLocked):
        sixpgp.decrypt(message, key)
    with pytest.raises(sixpgp.BadPassword):
        sixpgp.Key.from_bytes(bytes(key), password="wrong")
    with pytest.raises(sixpgp.BadPassword):
        key.unlock(b"wrong")
    unlocked = sixpgp.Key.from_bytes(key.armor(), password="secret")
    assert not unlocked.locked
    assert sixpgp.decrypt(message, unlocked).data == b"for the locked key"
    assert sixpgp.decrypt(message, key.unlock("secret")).data == b"for the locked key"
    relocked = unlocked.lock("other")
    assert relocked.locked and not unlocked.locked
    assert sixpgp.decrypt(message, sixpgp.Key.from_bytes(bytes(relocked), "other")).data == b"for the locked key"


def test_argument_errors():
    with pytest.raises(sixpgp.InvalidArgument):
        sixpgp.Key.generate("x", "no-such-profile")
    with pytest.raises(sixpgp.InvalidArgument):
        sixpgp.Key.from_bytes(bytes(sixpgp.Key.generate("x").cert))  # no secret
    with pytest.raises(TypeError):
        sixpgp.Cert.from_bytes(12)


def test_key_equality_is_by_fingerprint_and_secret():
    key = sixpgp.Key.generate("Eq <eq@example.org>")
    assert key == sixpgp.Key.from_bytes(bytes(key)) and hash(key) == hash(sixpgp.Key.from_bytes(key.armor()))
    locked = key.lock("pw")
    assert locked != key and locked.fingerprint == key.fingerprint  # same key, other secret form
    assert key != sixpgp.Key.generate("Eq <eq@example.org>")
    assert key != key.cert and key != bytes(key)


def test_passwords_from_mutable_buffers():
    password = bytearray(b"buffer password")
    key = sixpgp.Key.generate("Buf <buf@example.org>", password=password)
    assert password == bytearray(b"buffer password")  # the caller's buffer is the caller's to wipe
    assert not key.unlock(password).locked
    assert not key.unlock(memoryview(password)).locked
    assert not sixpgp.Key.from_bytes(bytes(key), password=bytearray(b"buffer password")).locked
    message = sixpgp.encrypt(bytearray(b"plain"), passwords=[bytearray(b"pw")])
    assert sixpgp.decrypt(message, passwords=memoryview(b"pw")).data == b"plain"


WIPED = textwrap.dedent(
    """
    import random, re, sixpgp

    # 64 random octets, never held whole by this script except in `password`; the first 32 may
    # be overwritten by the allocator's bookkeeping when freed, so the last 32 are looked for,
    # as two halves (the needle itself must not be a contiguous copy).
    rng = random.Random()
    password = bytearray(64)
    for i in range(64):
        password[i] = rng.randrange(256)
    first, second = bytes(password[32:48]), bytes(password[48:64])

    key = sixpgp.Key.generate("Wipe <wipe@example.org>", password=password)
    for _ in range(3):
        key.unlock(password)
        key.unlock(memoryview(password))
        sixpgp.decrypt(sixpgp.encrypt(b"x", passwords=password), passwords=password)
    password[:] = bytes(64)

    found = 0
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            fields = line.split()
            if not fields[1].startswith("rw") or (len(fields) > 5 and not fields[5].startswith("[heap")):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                mem.seek(start)
                chunk = mem.read(end - start)
            except OSError:
                continue
            for m in re.finditer(re.escape(first), chunk):
                if chunk[m.end():m.end() + 16] == second:
                    found += 1
    print(found)
    """
)


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs /proc/self/mem (Linux)")
def test_password_from_a_bytearray_leaves_no_copy_in_memory():
    out = subprocess.run([sys.executable, "-c", WIPED], check=True, capture_output=True, text=True)
    assert int(out.stdout) == 0, f"{out.stdout.strip()} copies of the password left in memory"


def test_untrusted_limits_when_loading():
    key = sixpgp.Key.generate("Untrusted <u@example.org>", password="pw")
    cert = sixpgp.Cert.from_bytes(key.cert.armor(), untrusted=True)
    assert cert == key.cert
    assert sixpgp.Cert.read_all(bytes(cert), untrusted=True) == [cert]
    assert not sixpgp.Key.from_bytes(bytes(key), "pw", untrusted=True).locked
    assert not key.unlock("pw", untrusted=True).locked
    # More than the untrusted limit of octets for one keyring (8 MiB), fine without it.
    big = bytes(cert) * (9 * 1024 * 1024 // len(bytes(cert)) + 1)
    assert len(sixpgp.Cert.read_all(big)) > 1
    with pytest.raises(sixpgp.LimitExceeded):
        sixpgp.Cert.read_all(big, untrusted=True)
    with pytest.raises(sixpgp.InvalidArgument):
        sixpgp.Cert.from_bytes(bytes(cert) * 2, untrusted=True)  # one expected


def test_locked_key_error_says_how_to_unlock():
    key = sixpgp.Key.generate("Locked <l@example.org>", password="key pw")
    message = sixpgp.encrypt(b"x", key.cert)
    for kwargs in ({}, {"passwords": "key pw"}):
        with pytest.raises(sixpgp.KeyLocked) as e:
            sixpgp.decrypt(message, key, **kwargs)
        assert "key.unlock(password)" in str(e.value) and "passwords=" in str(e.value)
        assert e.value.fingerprint in {k.fingerprint for k in key.keys}


def test_generate_arguments_are_checked():
    key = sixpgp.Key.generate("Td <td@example.org>", validity=datetime.timedelta(days=2))
    info = key.cert.keys[0]
    assert (info.expires - info.created) == datetime.timedelta(days=2)
    for bad in (-5, 0, datetime.timedelta(seconds=-1), datetime.timedelta(0)):
        with pytest.raises(ValueError, match="validity"):
            sixpgp.Key.generate("x", validity=bad)
    for bad in ("1d", 1.5, True):
        with pytest.raises(TypeError, match="validity"):
            sixpgp.Key.generate("x", validity=bad)
