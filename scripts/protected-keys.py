#!/usr/bin/env python3
"""Writes RFC 9580 A.4's secret key under the secret-key protections other than AEAD, for
tests/data/: S2K usage 254 (AES-128 in CFB mode with a SHA-1 check, iterated and salted
SHA2-256 S2K, as Bouncy Castle, Proton and dart-pg write v6 keys), and the two that v6 keys
must not use, 255 (MalleableCFB) and a bare cipher ID (7, AES-128).

Independent of sixpgp: the packets are read and written here, the S2K is hashlib's SHA2-256,
and AES-CFB is Python's `cryptography` package (pip install cryptography). The public parts
and self-signatures of A.4 are kept as they are, so the keys still belong to A.3's
certificate. Deterministic: the salts and IVs are fixed below.

Usage: scripts/protected-keys.py tests/data/a04-v6-secret-key.asc tests/data/
"""

import base64
import hashlib
import pathlib
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

try:
    from cryptography.hazmat.decrepit.ciphers.modes import CFB
except ImportError:  # before cryptography 47
    from cryptography.hazmat.primitives.ciphers.modes import CFB

PASSWORD = b"correct horse battery staple"
# Fixed, arbitrary salt and IV: the files are reproducible.
SALT = bytes.fromhex("a1b2c3d4e5f60718")
IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
# Coded count 96: (16 + 0) << (6 + 6) = 65536 octets hashed (RFC 9580 §3.7.1.3).
CODED_COUNT = 96
SHA2_256, AES128 = 8, 7
# v6 public key fields before the usage octet: version, creation time, algorithm, length, key.
PUBLIC_LEN = 1 + 4 + 1 + 4 + 32
SECRET_KEY, SECRET_SUBKEY = 5, 7


def dearmor(text):
    lines = text.strip().splitlines()
    body = [l for l in lines[lines.index("") + 1 : -1] if not l.startswith("=")]
    return base64.b64decode("".join(body))


def armor(data):
    b64 = base64.b64encode(data).decode()
    lines = [b64[i : i + 64] for i in range(0, len(b64), 64)]
    return "\n".join(
        ["-----BEGIN PGP PRIVATE KEY BLOCK-----", "", *lines, "-----END PGP PRIVATE KEY BLOCK-----", ""]
    )


def packets(data):
    """(tag, body) of each OpenPGP-format packet (RFC 9580 §4.2.1)."""
    i = 0
    while i < len(data):
        assert data[i] & 0xC0 == 0xC0, "OpenPGP packet format only"
        tag, first = data[i] & 0x3F, data[i + 1]
        if first < 192:
            length, i = first, i + 2
        elif first < 224:
            length, i = ((first - 192) << 8) + data[i + 2] + 192, i + 3
        else:
            assert first == 255, "no partial lengths in a key"
            length, i = int.from_bytes(data[i + 2 : i + 6], "big"), i + 6
        yield tag, data[i : i + length]
        i += length


def packet(tag, body):
    n = len(body)
    if n < 192:
        header = bytes([n])
    elif n < 8384:
        header = bytes([((n - 192) >> 8) + 192, (n - 192) & 0xFF])
    else:
        header = b"\xff" + n.to_bytes(4, "big")
    return bytes([0xC0 | tag]) + header + body


def iterated_salted_sha256(password, salt, coded_count, key_len):
    """RFC 9580 §3.7.1.3; one hash context, enough for a key of up to 32 octets."""
    count = (16 + (coded_count & 15)) << ((coded_count >> 4) + 6)
    unit = salt + password
    data = (unit * (count // len(unit) + 1))[: max(count, len(unit))]
    return hashlib.sha256(data).digest()[:key_len]


def aes_cfb(key, iv, data):
    encryptor = Cipher(algorithms.AES(key), CFB(iv)).encryptor()
    return encryptor.update(data) + encryptor.finalize()


def s2k_specifier():
    return bytes([3, SHA2_256]) + SALT + bytes([CODED_COUNT])


def protect_254(material):
    """RFC 9580 §5.5.3 for v6 and usage 254: count, cipher, S2K length, S2K, IV, then
    CFB(material ‖ SHA-1(material)) under the S2K output (§3.7.2.1)."""
    s2k = s2k_specifier()
    fields = bytes([AES128, len(s2k)]) + s2k + IV
    key = iterated_salted_sha256(PASSWORD, SALT, CODED_COUNT, 16)
    sealed = aes_cfb(key, IV, material + hashlib.sha1(material).digest())
    return bytes([254, len(fields)]) + fields + sealed


def protect_255(material):
    """Usage 255 (MalleableCFB): as 254, but with a two-octet sum as the check."""
    s2k = s2k_specifier()
    fields = bytes([AES128, len(s2k)]) + s2k + IV
    key = iterated_salted_sha256(PASSWORD, SALT, CODED_COUNT, 16)
    checksum = (sum(material) % 65536).to_bytes(2, "big")
    return bytes([255, len(fields)]) + fields + aes_cfb(key, IV, material + checksum)


def protect_cipher_id(material):
    """A bare cipher ID as the usage octet (legacy): the IV only, the key the MD5 of the
    password (RFC 9580 §3.7.2.1)."""
    key = hashlib.md5(PASSWORD).digest()
    checksum = (sum(material) % 65536).to_bytes(2, "big")
    return bytes([AES128, len(IV)]) + IV + aes_cfb(key, IV, material + checksum)


def reprotect(data, protect):
    out = b""
    for tag, body in packets(data):
        if tag in (SECRET_KEY, SECRET_SUBKEY):
            public, usage, material = body[:PUBLIC_LEN], body[PUBLIC_LEN], body[PUBLIC_LEN + 1 :]
            assert usage == 0, "the input key must be unlocked"
            body = public + protect(material)
        out += packet(tag, body)
    return out


def main():
    source, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    data = dearmor(source.read_text())
    for name, protect in [
        ("a04-locked-cfb-254.asc", protect_254),
        ("a04-locked-malleable-cfb-255.asc", protect_255),
        ("a04-locked-cipher-id-7.asc", protect_cipher_id),
    ]:
        (target / name).write_text(armor(reprotect(data, protect)))


if __name__ == "__main__":
    main()
