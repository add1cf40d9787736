//! The exception hierarchy and the one mapping from [`sixpgp::Error`](LibError) to it.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use sixpgp::{Error as LibError, KeyProblem};

create_exception!(sixpgp, Error, PyException, "Base class of every error sixpgp raises.");
create_exception!(
    sixpgp,
    BadPassword,
    Error,
    "A password was given and opens nothing: not the message's, or not the key's."
);
create_exception!(
    sixpgp,
    DecryptionFailed,
    Error,
    "The message does not authenticate: it was modified or truncated, or the session key is wrong. \
     Opaque on purpose."
);
create_exception!(
    sixpgp,
    NoDecryptionKey,
    Error,
    "No key or password given can open this message: it is not for them."
);
create_exception!(
    sixpgp,
    KeyLocked,
    Error,
    "Only a password-protected key would open this: unlock the key first, with \
     `key.unlock(password)` or `Key.from_bytes(data, password)`. (`passwords=` of `decrypt` is \
     for messages encrypted to a password, not for keys.) `.fingerprint` names the key."
);
create_exception!(
    sixpgp,
    NoGoodSignature,
    Error,
    "A good signature was required and the message has none by the certificates given (it is \
     unsigned, or its signatures are bad or by others). `.verifications` lists the verdicts."
);
create_exception!(
    sixpgp,
    KeyUnusable,
    Error,
    "A key cannot be used for this. `.fingerprint` names the certificate, `.problem` says why \
     (\"expired\", \"revoked\", \"no_encryption_key\", ...)."
);
create_exception!(sixpgp, Malformed, Error, "The input is not well-formed OpenPGP (or is truncated).");
create_exception!(
    sixpgp,
    Unsupported,
    Error,
    "Well-formed input this library does not implement (v4 keys, SEIPDv1, compression, ...)."
);
create_exception!(
    sixpgp,
    LimitExceeded,
    Error,
    "The input needs more of a resource than the limits allow. `.limit` names it."
);
create_exception!(
    sixpgp,
    InvalidArgument,
    Error,
    "An argument cannot be used: no recipient, an unknown profile, a public key where a secret \
     key is needed, ..."
);

/// Adds the exception classes to the module .
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("BadPassword", py.get_type::<BadPassword>())?;
    m.add("DecryptionFailed", py.get_type::<DecryptionFailed>())?;
    m.add("NoDecryptionKey", py.get_type::<NoDecryptionKey>())?;
    m.add("KeyLocked", py.get_type::<KeyLocked>())?;
    m.add("KeyUnusable", py.get_type::<KeyUnusable>())?;
    m.add("NoGoodSignature", py.get_type::<NoGoodSignature>())?;
    m.add("Malformed", py.get_type::<Malformed>())?;
    m.add("Unsupported", py.get_type::<Unsupported>())?;
    m.add("LimitExceeded", py.get_type::<LimitExceeded>())?;
    m.add("InvalidArgument", py.get_type::<InvalidArgument>())?;
    Ok(())
}

/// The exception for a library error: the class a caller acts on, the library's message, and
/// for `KeyUnusable` and `LimitExceeded` the details as attributes.
pub(crate) fn to_py(py: Python<'_>, err: LibError) -> PyErr {
    let message = err.to_string();
    match err {
        LibError::Malformed(_) | LibError::Truncated(_) => Malformed::new_err(message),
        LibError::Unsupported(_) => Unsupported::new_err(message),
        LibError::Decrypt => DecryptionFailed::new_err(message),
        LibError::NoDecryptionKey { .. } => NoDecryptionKey::new_err(message),
        LibError::KeyLocked { fingerprint, .. } => {
            let message = format!(
                "{message}: unlock it first, with key.unlock(password) or \
                 Key.from_bytes(data, password) (passwords= is for messages encrypted to a password)"
            );
            with_attributes(py, KeyLocked::new_err(message), &[("fingerprint", fingerprint.to_string())])
        }
        LibError::BadPassword => BadPassword::new_err(message),
        LibError::KeyUnusable { fingerprint, problem, subkey, .. } => {
            let err = with_attributes(
                py,
                KeyUnusable::new_err(message),
                &[("fingerprint", fingerprint.to_string()), ("problem", problem_code(problem).to_owned())],
            );
            // The unusable subkey, when it is one (None when the certificate as a whole is).
            if let Err(e) = err.value(py).setattr("subkey", subkey.map(|s| s.to_string())) {
                return e;
            }
            err
        }
        LibError::LimitExceeded(limit) => {
            with_attributes(py, LimitExceeded::new_err(message), &[("limit", limit.to_string())])
        }
        LibError::InvalidArgument(_) => InvalidArgument::new_err(message),
        // Not from the input's octets but from the system: the `OSError` subclass of its kind.
        LibError::Io(err) => PyErr::from(err),
        _ => Error::new_err(message),
    }
}

/// `err` with string attributes set on its exception object.
fn with_attributes(py: Python<'_>, err: PyErr, attributes: &[(&str, String)]) -> PyErr {
    let value = err.value(py);
    for (name, text) in attributes {
        if let Err(e) = value.setattr(*name, text) {
            return e;
        }
    }
    err
}

/// A stable identifier for a [`KeyProblem`], for code that branches on it.
pub(crate) fn problem_code(problem: KeyProblem) -> &'static str {
    match problem {
        KeyProblem::NotYetValid => "not_yet_valid",
        KeyProblem::Revoked => "revoked",
        KeyProblem::Expired => "expired",
        KeyProblem::NoValidSelfSignature => "no_valid_self_signature",
        KeyProblem::NoEncryptionKey => "no_encryption_key",
        KeyProblem::NoSigningKey => "no_signing_key",
        KeyProblem::WrongKeyFlags => "wrong_key_flags",
        KeyProblem::NoSecret => "no_secret",
        KeyProblem::UnsupportedAlgorithm => "unsupported_algorithm",
        _ => "other",
    }
}

/// Extension for results of the library: `.py(py)?` raises the mapped exception.
pub(crate) trait IntoPyResult<T> {
    /// The result with the error mapped by [`to_py`].
    fn py(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for sixpgp::Result<T> {
    fn py(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
