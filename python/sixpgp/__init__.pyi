"""Modern OpenPGP for Python: v6 keys and signatures (RFC 9580), SEIPDv2 AEAD encryption,
Ed25519/X25519 and the post-quantum hybrids ML-KEM-768+X25519 and ML-DSA-65+Ed25519 (RFC 9980).
"""

import datetime
import os
from typing import BinaryIO, Iterable, Literal, Optional, Union, final, overload

from typing_extensions import TypeAlias

__all__ = [
    "BadPassword",
    "Cert",
    "Data",
    "Decrypted",
    "DecryptionFailed",
    "Decryptor",
    "EncryptedFile",
    "Encryptor",
    "Error",
    "InvalidArgument",
    "Key",
    "KeyInfo",
    "KeyLocked",
    "KeyUnusable",
    "Keys",
    "LimitExceeded",
    "Malformed",
    "NoDecryptionKey",
    "NoGoodSignature",
    "PROFILES",
    "Password",
    "Passwords",
    "Recipients",
    "Unsupported",
    "Verification",
    "__version__",
    "decrypt",
    "decrypt_stream",
    "encrypt",
    "encrypt_stream",
    "sign",
    "verify",
]

__version__: str
PROFILES: dict[str, str]
"""Key profiles: name -> description (as `sixsop list-profiles`)."""

Data: TypeAlias = Union[bytes, bytearray, memoryview, str]
"""Octets; a str is taken as UTF-8 (armored text)."""
Password: TypeAlias = Union[str, bytes, bytearray]
"""A bytearray is copied into memory the library wipes; the caller can wipe its own."""
Recipients: TypeAlias = Union["Cert", "Key", Iterable[Union["Cert", "Key"]], None]
Keys: TypeAlias = Union["Key", Iterable["Key"], None]
Passwords: TypeAlias = Union[Password, Iterable[Password], None]
_Path: TypeAlias = Union[str, "os.PathLike[str]"]

class Error(Exception):
    """Base class of every error sixpgp raises."""

class BadPassword(Error):
    """A password was given and opens nothing: not the message's, or not the key's."""

class DecryptionFailed(Error):
    """The message does not authenticate (modified, truncated, wrong session key). Opaque."""

class NoDecryptionKey(Error):
    """No key or password given can open this message."""

class KeyLocked(Error):
    """Only a password-protected key would open this: unlock the key first, with
    `key.unlock(password)` or `Key.from_bytes(data, password)`. (`passwords=` of `decrypt` is
    for messages encrypted to a password, not for keys.)"""

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

class NoGoodSignature(Error):
    """A good signature was required and the message has none by the certificates given."""

    verifications: list[Verification]
    """The verdicts on the message's signatures (empty if it is not signed)."""

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

@final
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

@final
class Cert:
    """A certificate: what others encrypt to and verify with. `bytes(cert)` is its binary
    form, `cert.armor()` its armored text."""

    @staticmethod
    def from_bytes(data: Data, *, untrusted: bool = False) -> Cert:
        """Loads one certificate, armored or binary (or the public part of a secret key).
        `untrusted=True` applies the limits meant for input from anyone."""
    @classmethod
    def read_all(cls, data: Data, *, untrusted: bool = False) -> list[Cert]:
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

@final
class Key:
    """A secret key. `bytes(key)` and `key.armor()` contain the secret material (protected only
    if the key is locked)."""

    @staticmethod
    def generate(
        user_id: str,
        profile: str = "default",
        *,
        password: Optional[Password] = None,
        validity: Union[int, datetime.timedelta, None] = None,
        signing_only: bool = False,
    ) -> Key:
        """A new key; `profile` is a name from PROFILES. With `password` the key is locked
        (`unlock` it to use it); `validity` in seconds or a timedelta."""
    @staticmethod
    def from_bytes(data: Data, password: Optional[Password] = None, *, untrusted: bool = False) -> Key:
        """Loads one secret key, armored or binary, unlocking it with `password` if given.
        `untrusted=True` applies the limits meant for input from anyone."""
    @classmethod
    def read_all(cls, data: Data, *, untrusted: bool = False) -> list[Key]:
        """Loads every secret key of a keyring (armored blocks or binary, one after another);
        locked keys stay locked."""
    def unlock(self, password: Password, *, untrusted: bool = False) -> Key:
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

@final
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

@final
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
    require_signature: bool = False,
    untrusted: bool = False,
) -> Decrypted:
    """Decrypts one message and checks its signatures against `verify`
    (`require_signature=True`: `NoGoodSignature` unless one is good). `untrusted=True`
    applies the limits meant for input from anyone."""

def sign(data: Data, key: Keys, *, armor: bool = True) -> bytes:
    """A detached signature over `data`."""

def verify(data: Data, signature: Data, certs: Recipients, *, untrusted: bool = False) -> list[Verification]:
    """Checks a detached signature; a bad signature is a verdict, not an exception."""

def encrypt_stream(
    src: Union[BinaryIO, _Path],
    dst: Union[BinaryIO, _Path],
    recipients: Recipients = None,
    *,
    passwords: Passwords = None,
    signer: Keys = None,
    armor: bool = True,
) -> int:
    """Encrypts `src` to `dst` (file objects or paths) at bounded memory with the GIL
    released; returns the octets read. A `dst` path appears only once the message is complete."""

def decrypt_stream(
    src: Union[BinaryIO, _Path],
    dst: Union[BinaryIO, _Path],
    keys: Keys = None,
    *,
    passwords: Passwords = None,
    verify: Recipients = None,
    require_signature: bool = False,
    untrusted: bool = False,
) -> list[Verification]:
    """Decrypts `src` to `dst` (file objects or paths) at bounded memory with the GIL
    released; returns the verdicts. A `dst` path appears only once the message has
    authenticated; written to a file object, discard the output if this raises."""

@final
class EncryptedFile:
    """A read-only, seekable binary file over the plaintext of a binary encrypted file: only
    the chunks a read touches are decrypted, each authenticated before any of it is returned.
    `finish()` (or reading to the end) checks the end of the message, which catches a
    truncated file. Signatures inside are never checked. The GIL is released while it reads."""

    def __new__(
        cls, path: _Path, keys: Keys = None, *, passwords: Passwords = None, untrusted: bool = False
    ) -> EncryptedFile: ...
    def read(self, size: Optional[int] = ...) -> bytes: ...
    def readall(self) -> bytes: ...
    def readinto(self, buffer: bytearray | memoryview) -> int: ...
    def seek(self, offset: int, whence: int = 0) -> int: ...
    def tell(self) -> int: ...
    def finish(self) -> int:
        """Checks the end of the message and returns the plaintext's length; closes the file."""
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def readable(self) -> bool: ...
    def seekable(self) -> bool: ...
    def writable(self) -> bool: ...
    def isatty(self) -> bool: ...
    def flush(self) -> None: ...
    def __enter__(self) -> "EncryptedFile": ...
    def __exit__(self, _exc_type: object, _exc: object, _tb: object) -> bool: ...

@final
class Decryptor:
    """Keys and passwords built once, for many messages."""

    def __new__(
        cls,
        keys: Keys = None,
        *,
        passwords: Passwords = None,
        verify: Recipients = None,
        require_signature: bool = False,
        threads: Optional[int] = None,
        untrusted: bool = True,
    ) -> Decryptor:
        """`threads`: at least 1, or None for every core. `verify`: certificates to check
        signatures against (`require_signature=True`: a message without a good one fails with
        `NoGoodSignature`). `untrusted`: the limits meant for input from anyone (the default:
        bulk input usually comes from many senders)."""
    @property
    def threads(self) -> Optional[int]: ...
    @property
    def untrusted(self) -> bool: ...
    @overload
    def decrypt(self, message: Data, *, verifications: Literal[False] = False) -> bytes:
        """Decrypts one message; raises a sixpgp.Error subclass."""
    @overload
    def decrypt(self, message: Data, *, verifications: Literal[True]) -> Decrypted: ...
    @overload
    def decrypt_all(self, messages: Iterable[Data], *, verifications: Literal[False] = False) -> list[Union[bytes, Error]]:
        """Decrypts a batch on the library's threads with the GIL released: per message, in
        order, the plaintext (or with `verifications=True` a `Decrypted`) or the exception
        object."""
    @overload
    def decrypt_all(self, messages: Iterable[Data], *, verifications: Literal[True]) -> list[Union[Decrypted, Error]]: ...

@final
class Encryptor:
    """Recipients and passwords built once, for encrypting many values, each as a message of
    its own, signed inside the encryption by `signer` if given. Raises at construction if a
    recipient cannot be encrypted to or a signing key cannot sign (`KeyLocked` for a locked
    one)."""

    def __new__(
        cls,
        recipients: Recipients = None,
        *,
        passwords: Passwords = None,
        signer: Keys = None,
        armor: bool = False,
        threads: Optional[int] = None,
    ) -> Encryptor: ...
    @property
    def threads(self) -> Optional[int]: ...
    def encrypt_all(self, values: Iterable[Data]) -> list[bytes]:
        """Encrypts a batch on the library's threads with the GIL released: one message per
        value, in order."""
