"""Keyrings of several armored blocks, one after the other (as `cat a.asc b.asc` gives them):
every certificate is read, and an encryption to them has every one as a recipient."""

import pytest

import sixpgp


def rings(a, b):
    """The forms two objects take in one input: binary, armored blocks, blank lines between."""
    return {
        "binary": bytes(a) + bytes(b),
        "armored": (a.armor() + b.armor()).encode(),
        "armored, blank lines between": (a.armor() + "\n\n" + b.armor()).encode(),
        "armored, then binary": a.armor().encode() + bytes(b),
    }


def test_every_certificate_of_a_keyring_is_read_and_encrypted_to(alice, bob):
    for form, ring in rings(alice.cert, bob.cert).items():
        certs = sixpgp.Cert.read_all(ring)
        assert certs == [alice.cert, bob.cert], form
        message = sixpgp.encrypt(b"to both", certs)
        for key in (alice, bob):
            assert sixpgp.decrypt(message, key).data == b"to both", form


def test_one_object_expected_refuses_a_second(alice, bob):
    for form, ring in rings(alice.cert, bob.cert).items():
        with pytest.raises(sixpgp.InvalidArgument):
            sixpgp.Cert.from_bytes(ring)
    for form, ring in rings(alice, bob).items():
        with pytest.raises(sixpgp.InvalidArgument):
            sixpgp.Key.from_bytes(ring)
        # The keys of a keyring are certificates too.
        assert sixpgp.Cert.read_all(ring) == [alice.cert, bob.cert], form


def test_every_key_of_a_keyring_is_read_and_decrypts(alice, bob):
    message = sixpgp.encrypt(b"to both", [alice.cert, bob.cert])
    for form, ring in rings(alice, bob).items():
        keys = sixpgp.Key.read_all(ring)
        assert [k.fingerprint for k in keys] == [alice.fingerprint, bob.fingerprint], form
        for key in keys:
            assert sixpgp.decrypt(message, key).data == b"to both", form
