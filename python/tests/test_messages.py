"""Messages in memory: round trips, verdicts, every exception class, batches, the GIL."""

import pickle
import threading
import time

import pytest

import sixpgp


@pytest.mark.parametrize("armor", [True, False])
def test_round_trip(profile_key, armor):
    message = sixpgp.encrypt(b"Hello, world", profile_key.cert, armor=armor)
    assert message.startswith(b"-----BEGIN PGP MESSAGE-----") == armor
    result = sixpgp.decrypt(message, [profile_key])
    assert result.data == b"Hello, world" and result.verifications == []
    if armor:  # armored text may be passed as str
        assert sixpgp.decrypt(message.decode(), profile_key).data == b"Hello, world"
    signature = sixpgp.sign(b"document", profile_key, armor=armor)
    [verdict] = sixpgp.verify(b"document", signature, [profile_key.cert])
    assert verdict.good and verdict.status == "good" and verdict.reason is None
    assert verdict.fingerprint == profile_key.fingerprint


def test_signed_and_encrypted(alice, bob):
    message = sixpgp.encrypt(b"signed", bob.cert, signer=alice)
    result = sixpgp.decrypt(message, bob, verify=alice.cert)
    [verdict] = result.verifications
    assert result.data == b"signed" and verdict.good and verdict.cert == alice.fingerprint
    assert verdict.created is not None
    # Not asked to verify: listed, unchecked.
    [unchecked] = sixpgp.decrypt(message, bob).verifications
    assert unchecked.status == "unverifiable" and not unchecked.good
    # Verified against the wrong certificate.
    [other] = sixpgp.decrypt(message, bob, verify=bob.cert).verifications
    assert other.status == "unverifiable" and "no matching certificate" in other.reason


def test_bad_signature_is_a_verdict(alice):
    signature = sixpgp.sign(b"document", alice)
    [verdict] = sixpgp.verify(b"changed", signature, alice.cert)
    assert verdict.status == "bad" and not verdict.good and verdict.reason == "does not verify"


def test_several_recipients_and_passwords(alice, bob):
    message = sixpgp.encrypt(memoryview(b"to both"), [alice.cert, bob], passwords=["pw1", b"pw2"])
    assert sixpgp.decrypt(message, alice).data == b"to both"
    assert sixpgp.decrypt(message, [bob]).data == b"to both"
    assert sixpgp.decrypt(message, passwords="pw1").data == b"to both"
    assert sixpgp.decrypt(message, passwords=[b"nope", "pw2"]).data == b"to both"


def test_every_exception_class_from_real_input(alice, bob):
    message = sixpgp.encrypt(b"x" * 100, alice.cert, passwords="right", armor=False)
    with pytest.raises(sixpgp.BadPassword):
        sixpgp.decrypt(message, passwords="wrong")
    with pytest.raises(sixpgp.NoDecryptionKey):
        sixpgp.decrypt(message, bob)
    tampered = bytearray(message)
    tampered[-5] ^= 0x01  # inside the final authentication tag
    with pytest.raises(sixpgp.DecryptionFailed):
        sixpgp.decrypt(bytes(tampered), alice)
    with pytest.raises(sixpgp.Malformed):
        sixpgp.decrypt(message[: len(message) // 2], alice)
    with pytest.raises(sixpgp.Malformed):
        sixpgp.Cert.from_bytes(b"not a key")
    with pytest.raises(sixpgp.Unsupported):
        sixpgp.Cert.from_bytes(bytes([0xC6, 0x05, 0x04, 0, 0, 0, 0]))  # a version 4 key packet
    signing_only = sixpgp.Key.generate("Signer <signer@example.org>", signing_only=True)
    with pytest.raises(sixpgp.KeyUnusable) as e:
        sixpgp.encrypt(b"x", signing_only.cert)
    assert e.value.fingerprint == signing_only.fingerprint and e.value.problem == "no_encryption_key"
    many = [sixpgp.Key.generate(f"R{i} <r{i}@example.org>").cert for i in range(65)]
    with pytest.raises(sixpgp.LimitExceeded) as e:
        sixpgp.decrypt(sixpgp.encrypt(b"x", many), alice, untrusted=True)
    assert e.value.limit == "number of session-key packets"
    locked = sixpgp.Key.generate("L <l@example.org>", password="pw")
    with pytest.raises(sixpgp.KeyLocked):
        sixpgp.decrypt(sixpgp.encrypt(b"x", locked.cert), locked)
    with pytest.raises(sixpgp.InvalidArgument):
        sixpgp.encrypt(b"x")
    for cls in (sixpgp.BadPassword, sixpgp.DecryptionFailed, sixpgp.NoDecryptionKey, sixpgp.KeyUnusable,
                sixpgp.Malformed, sixpgp.Unsupported, sixpgp.LimitExceeded, sixpgp.KeyLocked,
                sixpgp.InvalidArgument):
        assert issubclass(cls, sixpgp.Error) and issubclass(sixpgp.Error, Exception)


def test_decrypt_all_keeps_good_messages_beside_bad_ones(alice, bob):
    good = [sixpgp.encrypt(bytes([i]) * 100, alice.cert, armor=i % 2 == 0) for i in range(40)]
    bad = {3: b"garbage", 10: sixpgp.encrypt(b"for bob", bob.cert), 17: good[17][:-9], 25: ""}
    batch = [bad.get(i, m) for i, m in enumerate(good)]
    for threads in (None, 1, 2):
        results = sixpgp.Decryptor(alice, threads=threads).decrypt_all(batch)
        assert len(results) == len(batch)
        for i, result in enumerate(results):
            if i in bad:
                assert isinstance(result, sixpgp.Error), (i, result)
            else:
                assert result == bytes([i]) * 100
        assert isinstance(results[10], sixpgp.NoDecryptionKey)
        assert isinstance(results[3], sixpgp.Malformed)
    decryptor = sixpgp.Decryptor([alice], passwords="pw")
    assert decryptor.decrypt(good[1]) == bytes([1]) * 100
    assert decryptor.decrypt_all(iter([])) == []
    with pytest.raises(sixpgp.NoDecryptionKey):
        decryptor.decrypt(bad[10])


def test_decryptor_pickles(alice):
    decryptor = sixpgp.Decryptor([alice], passwords=["pw"], threads=1)
    again = pickle.loads(pickle.dumps(decryptor))
    assert again.threads == 1
    assert again.decrypt(sixpgp.encrypt(b"shipped", alice.cert)) == b"shipped"
    assert again.decrypt(sixpgp.encrypt(b"by password", passwords="pw")) == b"by password"


def _batch(alice, n):
    distinct = [sixpgp.encrypt(bytes([i % 251]) * 100, alice.cert, armor=False) for i in range(50)]
    return [distinct[i % len(distinct)] for i in range(n)]


def test_decrypt_all_releases_the_gil(alice):
    """While one thread decrypts a batch, another runs Python code."""
    batch = _batch(alice, 4000)
    decryptor = sixpgp.Decryptor(alice, threads=1)
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        start = time.perf_counter()
        decryptor.decrypt_all(batch)
        elapsed = time.perf_counter() - start
        seen = ticks
    finally:
        done.set()
        counter.join()
    # With the GIL held through the call the counter could not run at all.
    assert elapsed > 0.01 and seen > 1000, (elapsed, seen)


def test_decrypt_all_refuses_one_message(alice):
    message = sixpgp.encrypt(b"one", alice.cert)
    decryptor = sixpgp.Decryptor(alice)
    for one in (message, message.decode(), bytearray(message), memoryview(message)):
        with pytest.raises(TypeError, match=r"Decryptor.decrypt\(message\)"):
            decryptor.decrypt_all(one)
    with pytest.raises(TypeError, match="messages"):
        decryptor.decrypt_all(42)
    assert decryptor.decrypt_all(iter([message])) == [b"one"]


def test_arguments_name_the_parameter(alice):
    for threads in (-1, 0):
        with pytest.raises(ValueError, match="threads"):
            sixpgp.Decryptor(alice, threads=threads)
    for threads in ("2", 1.0, True):
        with pytest.raises(TypeError, match="threads"):
            sixpgp.Decryptor(alice, threads=threads)
    assert sixpgp.Decryptor(alice, threads=None).threads is None
    with pytest.raises(TypeError, match="keys: .*not int"):
        sixpgp.decrypt(b"x", 42)
    with pytest.raises(TypeError, match="keys: .*not Cert"):
        sixpgp.Decryptor([alice.cert])
    with pytest.raises(TypeError, match="recipients: .*not int"):
        sixpgp.encrypt(b"x", 42)
    with pytest.raises(TypeError, match="passwords: "):
        sixpgp.encrypt(b"x", passwords=42)
    with pytest.raises(TypeError, match="verify: "):
        sixpgp.decrypt(b"x", alice, verify=[b"not a cert"])
    with pytest.raises(TypeError, match="data: "):
        sixpgp.encrypt(42, alice.cert)
    with pytest.raises(TypeError, match="signer: "):
        sixpgp.encrypt(b"x", alice.cert, signer=alice.cert)


def test_bulk_verification(alice, bob):
    signed = sixpgp.encrypt(b"signed", alice.cert, signer=bob)
    unsigned = sixpgp.encrypt(b"unsigned", alice.cert)
    by_alice = sixpgp.encrypt(b"by alice", alice.cert, signer=alice)
    batch = [signed, unsigned, by_alice, b"garbage"]

    checking = sixpgp.Decryptor(alice, verify=bob.cert)
    results = checking.decrypt_all(batch, verifications=True)
    assert [r.data for r in results[:3]] == [b"signed", b"unsigned", b"by alice"]
    assert [[v.good for v in r.verifications] for r in results[:3]] == [[True], [], [False]]
    assert isinstance(results[3], sixpgp.Malformed)
    assert checking.decrypt_all(batch)[:3] == [b"signed", b"unsigned", b"by alice"]
    assert checking.decrypt(signed, verifications=True).verifications[0].good

    strict = sixpgp.Decryptor(alice, verify=bob.cert, require_signature=True)
    results = strict.decrypt_all(batch)
    assert results[0] == b"signed"
    assert isinstance(results[1], sixpgp.NoGoodSignature) and results[1].verifications == []
    assert isinstance(results[2], sixpgp.NoGoodSignature)
    assert [v.status for v in results[2].verifications] == ["unverifiable"]
    with pytest.raises(sixpgp.NoGoodSignature):
        strict.decrypt(unsigned)
    again = pickle.loads(pickle.dumps(strict))
    assert isinstance(again.decrypt_all([unsigned])[0], sixpgp.NoGoodSignature)
    assert again.decrypt_all([signed]) == [b"signed"]

    # The one-message function, as the README shows it.
    assert sixpgp.decrypt(signed, alice, verify=bob.cert, require_signature=True).data == b"signed"
    with pytest.raises(sixpgp.NoGoodSignature):
        sixpgp.decrypt(unsigned, alice, verify=bob.cert, require_signature=True)
    with pytest.raises(ValueError, match="verify="):
        sixpgp.Decryptor(alice, require_signature=True)


def test_encryptor_signs_every_message(alice, bob, profile_key):
    encryptor = sixpgp.Encryptor(alice.cert, signer=profile_key, threads=2)
    values = [bytes([i]) * i for i in range(20)]
    for batch in (encryptor.encrypt_all(values), pickle.loads(pickle.dumps(encryptor)).encrypt_all(values)):
        results = sixpgp.Decryptor(alice, verify=profile_key.cert).decrypt_all(batch, verifications=True)
        assert [r.data for r in results] == values
        for r in results:
            [verdict] = r.verifications
            assert verdict.good and verdict.cert == profile_key.fingerprint
        assert sixpgp.decrypt(batch[0], alice, verify=profile_key.cert, require_signature=True).data == b""

        # Checked against the wrong certificate: a verdict that is not good, and with
        # require_signature a NoGoodSignature per message.
        wrong = sixpgp.Decryptor(alice, verify=bob.cert).decrypt_all(batch, verifications=True)
        assert all([v.status for v in r.verifications] == ["unverifiable"] for r in wrong)
        strict = sixpgp.Decryptor(alice, verify=bob.cert, require_signature=True).decrypt_all(batch)
        assert all(isinstance(r, sixpgp.NoGoodSignature) for r in strict)
        assert strict[3].verifications[0].signing_key is not None


def test_locked_signer_is_refused_before_any_output(alice, tmp_path):
    locked = sixpgp.Key.generate("Locked signer <ls@example.org>", password="pw")
    with pytest.raises(sixpgp.KeyLocked) as e:
        sixpgp.Encryptor(alice.cert, signer=locked)
    assert e.value.fingerprint == locked.fingerprint
    with pytest.raises(sixpgp.KeyLocked) as e:
        sixpgp.encrypt(b"x", alice.cert, signer=[alice, locked])
    assert e.value.fingerprint == locked.fingerprint
    (tmp_path / "plain").write_bytes(b"plain")
    with pytest.raises(sixpgp.KeyLocked):
        sixpgp.encrypt_stream(tmp_path / "plain", tmp_path / "out", alice.cert, signer=locked)
    assert not (tmp_path / "out").exists()
    signing_only = sixpgp.Key.generate("S <s@example.org>", signing_only=True)
    unlocked = locked.unlock("pw")
    [message] = sixpgp.Encryptor(alice.cert, signer=[unlocked, signing_only]).encrypt_all([b"two"])
    verdicts = sixpgp.decrypt(message, alice, verify=[locked.cert, signing_only.cert]).verifications
    assert sorted(v.cert for v in verdicts if v.good) == sorted([locked.fingerprint, signing_only.fingerprint])
    with pytest.raises(TypeError, match="signer: "):
        sixpgp.Encryptor(alice.cert, signer=alice.cert)


def test_decryptor_defaults_to_the_untrusted_limits(alice):
    # More session-key packets than the untrusted limits allow (64).
    many = sixpgp.encrypt(b"to many", [alice.cert] * 70, armor=False)
    assert sixpgp.Decryptor(alice).untrusted
    [refused] = sixpgp.Decryptor(alice).decrypt_all([many])
    assert isinstance(refused, sixpgp.LimitExceeded)
    assert sixpgp.Decryptor(alice, untrusted=False).decrypt_all([many]) == [b"to many"]
    assert sixpgp.decrypt(many, alice).data == b"to many"
    with pytest.raises(sixpgp.LimitExceeded):
        sixpgp.decrypt(many, alice, untrusted=True)
    assert not pickle.loads(pickle.dumps(sixpgp.Decryptor(alice, untrusted=False))).untrusted


def test_verify_untrusted(alice):
    signature = sixpgp.sign(b"doc", alice, armor=False)
    # More signatures than the untrusted limits allow (256).
    flood = signature * 300
    assert len(sixpgp.verify(b"doc", flood, alice.cert)) == 300
    with pytest.raises(sixpgp.LimitExceeded):
        sixpgp.verify(b"doc", flood, alice.cert, untrusted=True)
    [verdict] = sixpgp.verify(b"doc", signature, alice.cert, untrusted=True)
    assert verdict.good


def test_plaintext_from_mutable_buffers(alice):
    for data in (bytearray(b"mutable"), memoryview(b"mutable"), memoryview(bytearray(b"mutable"))):
        assert sixpgp.decrypt(sixpgp.encrypt(data, alice.cert), alice).data == b"mutable"
    message = sixpgp.encrypt(b"as a buffer", alice.cert, armor=False)
    assert sixpgp.Decryptor(alice).decrypt_all([bytearray(message), memoryview(message)]) == [b"as a buffer"] * 2
