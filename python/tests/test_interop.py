"""Messages and keys made by sixsop read in Python, and the reverse."""

import subprocess

import pytest

import sixpgp


def sop(binary, *args, stdin=b""):
    return subprocess.run([binary, *args], input=stdin, check=True, capture_output=True).stdout


@pytest.mark.parametrize("profile", sorted(sixpgp.PROFILES))
def test_sixsop_to_python_and_back(sixsop, tmp_path, profile):
    sop_key = sop(sixsop, "generate-key", "--profile", profile, "SOP <sop@example.org>")
    sop_cert = sop(sixsop, "extract-cert", stdin=sop_key)
    key = sixpgp.Key.from_bytes(sop_key)
    assert sixpgp.Cert.from_bytes(sop_cert) == key.cert

    # sixsop encrypts and signs, Python decrypts and verifies.
    signer_path = tmp_path / "signer.key"
    signer = sixpgp.Key.generate("Py <py@example.org>", profile)
    signer_path.write_bytes(bytes(signer))
    cert_path = tmp_path / "sop.cert"
    cert_path.write_bytes(sop_cert)
    message = sop(sixsop, "encrypt", "--sign-with", str(signer_path), str(cert_path), stdin=b"from sop")
    result = sixpgp.decrypt(message, key, verify=signer.cert)
    assert result.data == b"from sop" and [v.good for v in result.verifications] == [True]

    # Python encrypts and signs, sixsop decrypts and verifies.
    key_path = tmp_path / "sop.key"
    key_path.write_bytes(sop_key)
    signer_cert_path = tmp_path / "signer.cert"
    signer_cert_path.write_bytes(signer.cert.armor().encode())
    message = sixpgp.encrypt(b"from python", sixpgp.Cert.from_bytes(sop_cert), signer=signer)
    plain = sop(sixsop, "decrypt", "--verify-with", str(signer_cert_path),
                "--verifications-out", str(tmp_path / "verifications"), str(key_path), stdin=message)
    assert plain == b"from python"
    assert signer.fingerprint in (tmp_path / "verifications").read_text()

    # Detached signatures both ways.
    (tmp_path / "signature").write_bytes(sixpgp.sign(b"document", signer))
    sop(sixsop, "verify", str(tmp_path / "signature"), str(signer_cert_path), stdin=b"document")
    sop_signature = sop(sixsop, "sign", str(key_path), stdin=b"document")
    [verdict] = sixpgp.verify(b"document", sop_signature, key.cert)
    assert verdict.good


def test_password_messages_both_ways(sixsop, tmp_path):
    (tmp_path / "pw").write_text("hunter2")
    message = sop(sixsop, "encrypt", "--with-password", str(tmp_path / "pw"), stdin=b"by password")
    assert sixpgp.decrypt(message, passwords="hunter2").data == b"by password"
    message = sixpgp.encrypt(b"by password too", passwords="hunter2")
    assert sop(sixsop, "decrypt", "--with-password", str(tmp_path / "pw"), stdin=message) == b"by password too"
