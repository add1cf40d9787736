"""Modern OpenPGP for Python: v6 keys and signatures (RFC 9580), SEIPDv2 AEAD encryption,
Ed25519/X25519 and the post-quantum hybrids ML-KEM-768+X25519 and ML-DSA-65+Ed25519 (RFC 9980).
"""

import datetime
from typing import BinaryIO, Iterable, Optional, Union

__version__: str
PROFILES: dict[str, str]
"""Key profiles: name -> description (as `sixsop list-profiles`)."""

Data = Union[bytes, bytearray, memoryview, str]
"""Octets; a str is taken as UTF-8 (armored text)."""
Password = Union[str, bytes]
Recipients = Union["Cert", "Key", Iterable[Union["Cert", "Key"]], None]
Keys = Union["Key", Iterable["Key"], None]
Passwords = Union[Password, Iterable[Password], None]

class Error(Exception):
    """Base class of every error sixpgp raises."""

class BadPassword(Error):
    """A password was given and opens nothing: not the message's, or not the key's."""

class DecryptionFailed(Error):
    """The message does not authenticate (modified, truncated, wrong session key). Opaque."""

class NoDecryptionKey(Error):
    """No key or password given can open this message."""

class KeyLocked(Error):
    """Only a password-protected key would open this: load it with its password."""

    fingerprint: str
    """The locked key's fingerprint."""

class KeyUnusable(Error):
    """A key cannot be used for this."""

    fingerprint: str
    """The certificate's fingerprint."""
    subkey: str | None
    """The unusable subkey's fingerprint, or None when the certificate as a whole is."""
    problem: str
    """Why: "expired", "revoked", "not_yet_valid", "no_valid_self_signature",
    "no_encryption_key", "no_signing_key", "wrong_key_flags", "no_secret",
    "unsupported_algorithm" or "other"."""

class Malformed(Error):
    """The input is not well-formed OpenPGP (or is truncated)."""

class Unsupported(Error):
    """Well-formed input this library does not implement (v4 keys, SEIPDv1, compression, ...)."""

class LimitExceeded(Error):
    """The input needs more of a resource than the limits allow."""

    limit: str
    """The resource, e.g. "number of session-key packets"."""

class InvalidArgument(Error):
    """An argument cannot be used: no recipient, an unknown profile, a certificate where a
    secret key is needed, ..."""

class KeyInfo:
    """One key of a certificate (the primary key or a subkey), evaluated now."""

    @property
    def fingerprint(self) -> str: ...
    @property
    def algorithm(self) -> str:
        """"Ed25519", "X25519", "ML-DSA-65+Ed25519", "ML-KEM-768+X25519" or "unknown(N)"."""
    @property
    def flags(self) -> list[str]:
        """Of "certify", "sign", "encrypt-communications", "encrypt-storage"."""
    @property
    def primary(self) -> bool: ...
    @property
    def revoked(self) -> bool: ...
    @property
    def problem(self) -> Optional[str]:
        """Why the key is not usable now (as `KeyUnusable.problem`), or None."""
    @property
    def created(self) -> datetime.datetime: ...
    @property
    def expires(self) -> Optional[datetime.datetime]: ...

class Cert:
    """A certificate: what others encrypt to and verify with. `bytes(cert)` is its binary
    form, `cert.armor()` its armored text."""

    @staticmethod
    def from_bytes(data: Data) -> Cert:
        """Loads one certificate, armored or binary (or the public part of a secret key)."""
    @classmethod
    def read_all(cls, data: Data) -> list[Cert]:
        """Loads every certificate of a keyring."""
    @property
    def fingerprint(self) -> str:
        """64 upper-case hex digits."""
    @property
    def user_ids(self) -> list[str]: ...
    @property
    def keys(self) -> list[KeyInfo]: ...
    def armor(self) -> str: ...
    def __bytes__(self) -> bytes: ...

class Key:
    """A secret key. `bytes(key)` and `key.armor()` contain the secret material (protected only
    if the key is locked)."""

    @staticmethod
    def generate(
        user_id: str,
        profile: str = "default",
        *,
        password: Optional[Password] = None,
        validity: Optional[int] = None,
        signing_only: bool = False,
    ) -> Key:
        """A new key; `profile` is a name from PROFILES. With `password` the key is locked
        (`unlock` it to use it); `validity` in seconds."""
    @staticmethod
    def from_bytes(data: Data, password: Optional[Password] = None) -> Key:
        """Loads one secret key, armored or binary, unlocking it with `password` if given."""
    def unlock(self, password: Password) -> Key:
        """A copy of this key, unlocked."""
    def lock(self, password: Password) -> Key:
        """A copy of this key, locked with `password` (AES-256-OCB, Argon2)."""
    @property
    def locked(self) -> bool: ...
    @property
    def cert(self) -> Cert: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def user_ids(self) -> list[str]: ...
    @property
    def keys(self) -> list[KeyInfo]: ...
    def armor(self) -> str: ...
    def __bytes__(self) -> bytes: ...

class Verification:
    """The verdict on one signature."""

    @property
    def status(self) -> str:
        """"good", "bad" (checked, not acceptable) or "unverifiable" (not checked)."""
    @property
    def good(self) -> bool: ...
    @property
    def reason(self) -> Optional[str]:
        """Why the signature is not good, or None."""
    @property
    def fingerprint(self) -> Optional[str]:
        """The signer's certificate fingerprint if found, else the signing key's."""
    @property
    def signing_key(self) -> Optional[str]: ...
    @property
    def cert(self) -> Optional[str]: ...
    @property
    def created(self) -> Optional[datetime.datetime]: ...

class Decrypted:
    """A decrypted message."""

    @property
    def data(self) -> bytes: ...
    @property
    def verifications(self) -> list[Verification]:
        """One per signature in the message; only `.good` ones vouch for the data."""

def encrypt(
    data: Data,
    recipients: Recipients = None,
    *,
    passwords: Passwords = None,
    signer: Keys = None,
    armor: bool = True,
) -> bytes:
    """Encrypts to certificates and/or passwords, signed by `signer` if given."""

def decrypt(
    data: Data,
    keys: Keys = None,
    *,
    passwords: Passwords = None,
    verify: Recipients = None,
    untrusted: bool = False,
) -> Decrypted:
    """Decrypts one message and checks its signatures against `verify`. `untrusted=True`
    applies the limits meant for input from anyone."""

def sign(data: Data, key: Keys, *, armor: bool = True) -> bytes:
    """A detached signature over `data`."""

def verify(data: Data, signature: Data, certs: Recipients) -> list[Verification]:
    """Checks a detached signature; a bad signature is a verdict, not an exception."""

def encrypt_stream(
    src: BinaryIO,
    dst: BinaryIO,
    recipients: Recipients = None,
    *,
    passwords: Passwords = None,
    signer: Keys = None,
    armor: bool = True,
) -> int:
    """Encrypts `src` to `dst` at bounded memory with the GIL released; returns the octets
    read."""

def decrypt_stream(
    src: BinaryIO,
    dst: BinaryIO,
    keys: Keys = None,
    *,
    passwords: Passwords = None,
    verify: Recipients = None,
    untrusted: bool = False,
) -> list[Verification]:
    """Decrypts `src` to `dst` at bounded memory with the GIL released; returns the verdicts.
    If it raises, discard what was written."""

class Decryptor:
    """Keys and passwords built once, for many messages."""

    def __init__(
        self,
        keys: Keys = None,
        *,
        passwords: Passwords = None,
        threads: Optional[int] = None,
        untrusted: bool = False,
    ) -> None: ...
    @property
    def threads(self) -> Optional[int]: ...
    def decrypt(self, message: Data) -> bytes:
        """Decrypts one message; raises a sixpgp.Error subclass."""
    def decrypt_all(self, messages: Iterable[Data]) -> list[Union[bytes, Error]]:
        """Decrypts a batch on the library's threads with the GIL released: per message, in
        order, the plaintext or the exception object."""

class Encryptor:
    """Recipients and passwords built once, for encrypting many values, each as a message of
    its own. Raises at construction if a recipient cannot be encrypted to."""

    def __init__(
        self,
        recipients: Recipients = None,
        *,
        passwords: Passwords = None,
        armor: bool = False,
        threads: Optional[int] = None,
    ) -> None: ...
    @property
    def threads(self) -> Optional[int]: ...
    def encrypt_all(self, values: Iterable[Data]) -> list[bytes]:
        """Encrypts a batch on the library's threads with the GIL released: one message per
        value, in order."""
