//! Whole messages in memory: `encrypt`, `decrypt`, `sign`, `verify`, and `Decryptor` for many
//! messages with the same keys.

use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use sixpgp::{
    BufferPool, Cert, DecryptSummary, Decryptor, Encryptor, Password, Signer, Tsk, VerificationStatus,
    Verifier,
};

use crate::convert;
use crate::errors::{IntoPyResult, NoGoodSignature};
use crate::keys::{self, PyCert, PyKey};

/// The verdict on one signature.
#[pyclass(name = "Verification", module = "sixpgp", frozen)]
pub(crate) struct PyVerification {
    /// "good", "bad" (checked and not acceptable) or "unverifiable" (not checked).
    #[pyo3(get)]
    status: &'static str,
    /// Why the signature is not good (None if it is).
    #[pyo3(get)]
    reason: Option<String>,
    /// The fingerprint of the key that made the signature (the matching key, else the issuer
    /// the signature names), or None.
    #[pyo3(get)]
    signing_key: Option<String>,
    /// The primary fingerprint of the certificate that made the signature, if it was found.
    #[pyo3(get)]
    cert: Option<String>,
    created: Option<SystemTime>,
}

#[pymethods]
impl PyVerification {
    /// True if the signature is good.
    #[getter]
    fn good(&self) -> bool {
        self.status == "good"
    }

    /// The signer: the certificate's fingerprint if it was found, else the signing key's.
    #[getter]
    fn fingerprint(&self) -> Option<String> {
        self.cert.clone().or_else(|| self.signing_key.clone())
    }

    /// When the signature was made (a UTC `datetime`), if it says.
    #[getter]
    fn created(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.created.map(|t| convert::datetime(py, t)).transpose()
    }

    fn __repr__(&self) -> String {
        let who = self.fingerprint().unwrap_or_else(|| "unknown signer".into());
        match &self.reason {
            Some(reason) => format!("<sixpgp.Verification {} {who}: {reason}>", self.status),
            None => format!("<sixpgp.Verification {} {who}>", self.status),
        }
    }
}

impl From<&sixpgp::Verification> for PyVerification {
    fn from(v: &sixpgp::Verification) -> Self {
        let (status, reason) = match v.status() {
            VerificationStatus::Good => ("good", None),
            VerificationStatus::Bad(why) => ("bad", Some(why.to_string())),
            VerificationStatus::Unverifiable(why) => ("unverifiable", Some(why.to_string())),
            other => ("unverifiable", Some(other.to_string())),
        };
        Self {
            status,
            reason,
            signing_key: v.signing_key().map(|f| f.to_string()),
            cert: v.cert().map(|f| f.to_string()),
            created: v.creation_time(),
        }
    }
}

/// A list of `Verification`s.
pub(crate) fn verifications<'py>(
    py: Python<'py>,
    all: &[sixpgp::Verification],
) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, all.iter().map(PyVerification::from))
}

/// A decrypted message: `.data` (the plaintext) and `.verifications` (one per signature in the
/// message; only those whose `.good` is true vouch for the data).
#[pyclass(name = "Decrypted", module = "sixpgp", frozen)]
pub(crate) struct PyDecrypted {
    /// The plaintext.
    #[pyo3(get)]
    data: Py<PyBytes>,
    /// The verdicts, one per signature (empty if the message is not signed).
    #[pyo3(get)]
    verifications: Py<PyList>,
}

impl PyDecrypted {
    /// The plaintext (its Rust copy wiped) and the verdicts of one message.
    pub(crate) fn new(py: Python<'_>, plaintext: Vec<u8>, summary: &DecryptSummary) -> PyResult<Self> {
        Ok(Self {
            data: convert::bytes_wiping(py, plaintext),
            verifications: verifications(py, &summary.verifications)?.unbind(),
        })
    }
}

#[pymethods]
impl PyDecrypted {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<sixpgp.Decrypted {} octets, {} signatures>",
            self.data.bind(py).as_bytes().len(),
            self.verifications.bind(py).len()
        )
    }
}

/// The decryptor of a one-call function from its Python arguments (each optional).
pub(crate) fn decryptor_from_args(
    py: Python<'_>,
    keys: Option<&Bound<'_, PyAny>>,
    passwords: Option<&Bound<'_, PyAny>>,
    verify: Option<&Bound<'_, PyAny>>,
    require_signature: bool,
    untrusted: bool,
) -> PyResult<Decryptor> {
    let none = py.None().into_bound(py);
    let verify = keys::certs(verify.unwrap_or(&none), "verify")?;
    check_require_signature(require_signature, &verify)?;
    Ok(decryptor(
        keys::keys(keys.unwrap_or(&none), "keys")?,
        convert::passwords(passwords.unwrap_or(&none), "passwords")?,
        verify,
        None,
        untrusted,
    ))
}

/// `require_signature` needs certificates to check the signature against.
fn check_require_signature(require_signature: bool, verify: &[Arc<Cert>]) -> PyResult<()> {
    if require_signature && verify.is_empty() {
        return Err(PyValueError::new_err("require_signature: give the signers' certificates as verify="));
    }
    Ok(())
}

/// With `require_signature`, at least one of `verdicts` must be good: else `NoGoodSignature`,
/// with the verdicts as its `.verifications`.
pub(crate) fn check_signed(
    py: Python<'_>,
    require_signature: bool,
    verdicts: &[sixpgp::Verification],
) -> PyResult<()> {
    if !require_signature || verdicts.iter().any(sixpgp::Verification::is_good) {
        return Ok(());
    }
    let err = NoGoodSignature::new_err(if verdicts.is_empty() {
        "no good signature: the message is not signed"
    } else {
        "no good signature by the certificates given (see .verifications)"
    });
    err.value(py).setattr("verifications", verifications(py, verdicts)?)?;
    Err(err)
}

/// One message's result with `require_signature` applied: a message without the required
/// signature is an error, and its plaintext is wiped before any Python object holds it.
pub(crate) fn signed_as_required(
    py: Python<'_>,
    require_signature: bool,
    result: sixpgp::Result<(Vec<u8>, DecryptSummary)>,
) -> PyResult<(Vec<u8>, DecryptSummary)> {
    let (mut plaintext, summary) = result.py(py)?;
    if let Err(e) = check_signed(py, require_signature, &summary.verifications) {
        zeroize::Zeroize::zeroize(&mut plaintext);
        return Err(e);
    }
    Ok((plaintext, summary))
}

/// The chunk buffers every encryptor and decryptor of this process shares. Python code calls
/// `encrypt`/`decrypt` once per message, and each call builds a new handle: without a shared
/// pool every message over a few hundred KiB would map and zero fresh chunk buffers.
fn pool() -> BufferPool {
    static POOL: OnceLock<BufferPool> = OnceLock::new();
    POOL.get_or_init(BufferPool::default).clone()
}

/// The library's decryptor for these arguments.
pub(crate) fn decryptor(
    keys: Vec<Arc<Tsk>>,
    passwords: Vec<Password>,
    verify: Vec<Arc<Cert>>,
    threads: Option<usize>,
    untrusted: bool,
) -> Decryptor {
    let mut decryptor = Decryptor::new(keys).buffer_pool(pool());
    for password in passwords {
        decryptor = decryptor.password(password);
    }
    if !verify.is_empty() {
        decryptor = decryptor.verify_with(verify);
    }
    if let Some(threads) = threads {
        decryptor = decryptor.threads(threads);
    }
    decryptor.limits(keys::limits(untrusted))
}

/// The library's encryptor for these arguments.
pub(crate) fn encryptor(
    recipients: &Bound<'_, PyAny>,
    passwords: &Bound<'_, PyAny>,
    signer: Option<&Bound<'_, PyAny>>,
    armor: bool,
) -> PyResult<Encryptor> {
    let mut encryptor =
        Encryptor::new(keys::certs(recipients, "recipients")?).armor(armor).buffer_pool(pool());
    for password in convert::passwords(passwords, "passwords")? {
        encryptor = encryptor.password(password);
    }
    if let Some(signer) = signer {
        for key in keys::keys(signer, "signer")? {
            encryptor = encryptor.signer(key);
        }
    }
    Ok(encryptor)
}

/// Encrypts `data` to `recipients` (certificates or keys) and/or `passwords`, signed by
/// `signer` (a key) if given. Returns the message, armored text as bytes unless `armor=False`.
#[pyfunction]
#[pyo3(signature = (data, recipients = None, *, passwords = None, signer = None, armor = true))]
fn encrypt<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    recipients: Option<&Bound<'py, PyAny>>,
    passwords: Option<&Bound<'py, PyAny>>,
    signer: Option<&Bound<'py, PyAny>>,
    armor: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let none = py.None().into_bound(py);
    let encryptor = encryptor(recipients.unwrap_or(&none), passwords.unwrap_or(&none), signer, armor)?;
    let data = convert::octets(data, "data")?;
    let message = py.detach(|| encryptor.encrypt_bytes(&data)).py(py)?;
    Ok(PyBytes::new(py, &message))
}

/// Decrypts one message (armored or binary) with `keys` and/or `passwords`, and checks its
/// signatures against `verify` (certificates); `require_signature=True` raises
/// `NoGoodSignature` unless one of them is good. `untrusted=True` applies the limits meant for
/// input from anyone. Returns a `Decrypted`; raises if the message is not authentic and complete.
#[pyfunction]
#[pyo3(signature = (data, keys = None, *, passwords = None, verify = None, require_signature = false, untrusted = false))]
#[allow(clippy::too_many_arguments, reason = "the Python signature's keyword arguments")]
fn decrypt(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    keys: Option<&Bound<'_, PyAny>>,
    passwords: Option<&Bound<'_, PyAny>>,
    verify: Option<&Bound<'_, PyAny>>,
    require_signature: bool,
    untrusted: bool,
) -> PyResult<PyDecrypted> {
    let decryptor = decryptor_from_args(py, keys, passwords, verify, require_signature, untrusted)?;
    let data = convert::octets(data, "data")?;
    let result = py.detach(|| decryptor.decrypt_bytes(&data));
    let (plaintext, summary) = signed_as_required(py, require_signature, result)?;
    PyDecrypted::new(py, plaintext, &summary)
}

/// Signs `data` with `key` (or several keys) and returns the detached signature, armored text
/// as bytes unless `armor=False`.
#[pyfunction]
#[pyo3(signature = (data, key, *, armor = true))]
fn sign<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    armor: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut signer = Signer::new().armor(armor);
    for key in keys::keys(key, "key")? {
        signer = signer.key(key);
    }
    let data = convert::octets(data, "data")?;
    let signature = py.detach(|| signer.sign_bytes(&data)).py(py)?;
    Ok(PyBytes::new(py, &signature))
}

/// Checks the detached `signature` over `data` against `certs`. Returns one `Verification` per
/// signature; a bad signature is a verdict, not an exception. `untrusted=True` applies the
/// limits meant for input from anyone.
#[pyfunction]
#[pyo3(signature = (data, signature, certs, *, untrusted = false))]
fn verify<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    signature: &Bound<'py, PyAny>,
    certs: &Bound<'py, PyAny>,
    untrusted: bool,
) -> PyResult<Bound<'py, PyList>> {
    let verifier = Verifier::new(keys::certs(certs, "certs")?).limits(keys::limits(untrusted));
    let (data, signature) = (convert::octets(data, "data")?, convert::octets(signature, "signature")?);
    let verdicts = py.detach(|| verifier.verify_bytes(&signature, &data)).py(py)?;
    verifications(py, &verdicts)
}

/// Decrypts many messages with the same keys and passwords, built once.
///
/// `decrypt_all(messages)` spreads a batch over `threads` threads (default: every core) with
/// the GIL released, and returns one entry per message, in order: the plaintext `bytes` (or
/// with `verifications=True` a `Decrypted`), or the exception (a `sixpgp.Error` instance) for a
/// message that failed. `decrypt(message)` decrypts one and raises.
///
/// With `verify` (certificates) every message's signatures are checked; `require_signature`
/// makes a message without a good one fail with `NoGoodSignature`. Bulk input usually comes
/// from many senders, so the limits meant for input from anyone apply unless `untrusted=False`.
///
/// A `Decryptor` pickles as its keys (unprotected, if they were unlocked), passwords and
/// settings, so that Spark and Dask can ship it; it is cheap to rebuild from key bytes instead.
#[pyclass(name = "Decryptor", module = "sixpgp", frozen)]
pub(crate) struct PyDecryptor {
    inner: Decryptor,
    keys: Vec<Py<PyKey>>,
    passwords: Vec<Password>,
    verify: Vec<Py<PyCert>>,
    require_signature: bool,
    threads: Option<usize>,
    untrusted: bool,
}

impl PyDecryptor {
    /// The plaintext, or with `verifications` a `Decrypted`.
    fn output(
        py: Python<'_>,
        (plaintext, summary): (Vec<u8>, DecryptSummary),
        verifications: bool,
    ) -> PyResult<Py<PyAny>> {
        Ok(if verifications {
            Py::new(py, PyDecrypted::new(py, plaintext, &summary)?)?.into_any()
        } else {
            convert::bytes_wiping(py, plaintext).into_any()
        })
    }

    /// The library's decryptor.
    pub(crate) fn library(&self) -> &Decryptor {
        &self.inner
    }

    /// Whether a message without a good signature counts as failed.
    pub(crate) fn require_signature(&self) -> bool {
        self.require_signature
    }
}

#[pymethods]
impl PyDecryptor {
    #[new]
    #[pyo3(signature = (keys = None, *, passwords = None, verify = None, require_signature = false, threads = None, untrusted = true))]
    fn new(
        py: Python<'_>,
        keys: Option<&Bound<'_, PyAny>>,
        passwords: Option<&Bound<'_, PyAny>>,
        verify: Option<&Bound<'_, PyAny>>,
        require_signature: bool,
        threads: Option<&Bound<'_, PyAny>>,
        untrusted: bool,
    ) -> PyResult<Self> {
        let none = py.None().into_bound(py);
        let tsks = keys::keys(keys.unwrap_or(&none), "keys")?;
        let passwords = convert::passwords(passwords.unwrap_or(&none), "passwords")?;
        let certs = keys::certs(verify.unwrap_or(&none), "verify")?;
        check_require_signature(require_signature, &certs)?;
        let threads = convert::threads(threads)?;
        let key_objects = tsks.iter().map(|t| Py::new(py, PyKey(Arc::clone(t)))).collect::<PyResult<_>>()?;
        let cert_objects =
            certs.iter().map(|c| Py::new(py, PyCert(Arc::clone(c)))).collect::<PyResult<_>>()?;
        Ok(Self {
            inner: decryptor(tsks, passwords.clone(), certs, threads, untrusted),
            keys: key_objects,
            passwords,
            verify: cert_objects,
            require_signature,
            threads,
            untrusted,
        })
    }

    /// Decrypts one message and returns its plaintext (with `verifications=True` a
    /// `Decrypted`); raises a `sixpgp.Error` subclass.
    #[pyo3(signature = (message, *, verifications = false))]
    fn decrypt(
        &self,
        py: Python<'_>,
        message: &Bound<'_, PyAny>,
        verifications: bool,
    ) -> PyResult<Py<PyAny>> {
        let message = convert::octets(message, "message")?;
        let result = py.detach(|| self.inner.decrypt_bytes(&message));
        Self::output(py, signed_as_required(py, self.require_signature, result)?, verifications)
    }

    /// Decrypts every message of `messages` (an iterable of bytes or str) on the library's
    /// threads with the GIL released. Returns a list with, for each message in order, its
    /// plaintext (with `verifications=True` a `Decrypted`) or the exception object that says
    /// why it failed.
    #[pyo3(signature = (messages, *, verifications = false))]
    fn decrypt_all<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        verifications: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let batch = convert::batch(messages, "messages", "message", "Decryptor.decrypt(message)")?;
        let results = py.detach(|| self.inner.decrypt_all(&batch));
        drop(batch);
        let out = PyList::empty(py);
        for result in results {
            match signed_as_required(py, self.require_signature, result) {
                Ok(decrypted) => out.append(Self::output(py, decrypted, verifications)?)?,
                Err(e) => out.append(e.into_value(py))?,
            }
        }
        Ok(out)
    }

    /// The thread count given (None: every core).
    #[getter]
    fn threads(&self) -> Option<usize> {
        self.threads
    }

    /// Whether the limits meant for input from anyone apply.
    #[getter]
    fn untrusted(&self) -> bool {
        self.untrusted
    }

    fn __repr__(&self) -> String {
        format!(
            "<sixpgp.Decryptor {} keys, {} passwords, {} certificates to verify with{}>",
            self.keys.len(),
            self.passwords.len(),
            self.verify.len(),
            if self.require_signature { ", signature required" } else { "" }
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let restore = py.get_type::<PyDecryptor>().getattr("_restore")?;
        let keys = PyList::new(py, this.keys.iter().map(|k| k.clone_ref(py)))?;
        let passwords = PyList::new(py, this.passwords.iter().map(|p| PyBytes::new(py, p.as_bytes())))?;
        let verify = PyList::new(py, this.verify.iter().map(|c| c.clone_ref(py)))?;
        let args = (keys, passwords, verify, this.require_signature, this.threads, this.untrusted)
            .into_pyobject(py)?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    /// Rebuilds a pickled `Decryptor`.
    #[staticmethod]
    fn _restore(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        passwords: &Bound<'_, PyAny>,
        verify: &Bound<'_, PyAny>,
        require_signature: bool,
        threads: &Bound<'_, PyAny>,
        untrusted: bool,
    ) -> PyResult<Self> {
        Self::new(py, Some(keys), Some(passwords), Some(verify), require_signature, Some(threads), untrusted)
    }
}

/// Adds the functions and classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt, m)?)?;
    m.add_function(wrap_pyfunction!(sign, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_class::<PyDecryptor>()?;
    m.add_class::<PyDecrypted>()?;
    m.add_class::<PyVerification>()?;
    Ok(())
}
