"""Keys and certificates: generation for every profile, forms, inspection, pickling, locking."""

import datetime
import pickle
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
