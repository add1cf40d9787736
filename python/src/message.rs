//! Whole messages in memory: `encrypt`, `decrypt`, `sign`, `verify`, and `Decryptor` for many
//! messages with the same keys.

use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyList, PyTuple};
use sixpgp::{
    BufferPool, Cert, Decryptor, Encryptor, Limits, Password, Signer, Tsk, VerificationStatus, Verifier,
};

use crate::convert;
use crate::errors::{IntoPyResult, to_py};
use crate::keys::PyKey;

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
    untrusted: bool,
) -> PyResult<Decryptor> {
    let none = py.None().into_bound(py);
    Ok(decryptor(
        convert::keys(keys.unwrap_or(&none))?,
        convert::passwords(passwords.unwrap_or(&none))?,
        convert::certs(verify.unwrap_or(&none))?,
        None,
        untrusted,
    ))
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
        decryptor = decryptor.threads(threads.max(1));
    }
    if untrusted {
        decryptor = decryptor.limits(Limits::untrusted_input());
    }
    decryptor
}

/// The library's encryptor for these arguments.
pub(crate) fn encryptor(
    recipients: &Bound<'_, PyAny>,
    passwords: &Bound<'_, PyAny>,
    signer: Option<&Bound<'_, PyAny>>,
    armor: bool,
) -> PyResult<Encryptor> {
    let mut encryptor = Encryptor::new(convert::certs(recipients)?).armor(armor).buffer_pool(pool());
    for password in convert::passwords(passwords)? {
        encryptor = encryptor.password(password);
    }
    if let Some(signer) = signer {
        for key in convert::keys(signer)? {
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
    let data = convert::octets(data)?;
    let message = py.detach(|| encryptor.encrypt_bytes(&data)).py(py)?;
    Ok(PyBytes::new(py, &message))
}

/// Decrypts one message (armored or binary) with `keys` and/or `passwords`, and checks its
/// signatures against `verify` (certificates). `untrusted=True` applies the limits meant for
/// input from anyone. Returns a `Decrypted`; raises if the message is not authentic and complete.
#[pyfunction]
#[pyo3(signature = (data, keys = None, *, passwords = None, verify = None, untrusted = false))]
fn decrypt(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    keys: Option<&Bound<'_, PyAny>>,
    passwords: Option<&Bound<'_, PyAny>>,
    verify: Option<&Bound<'_, PyAny>>,
    untrusted: bool,
) -> PyResult<PyDecrypted> {
    let decryptor = decryptor_from_args(py, keys, passwords, verify, untrusted)?;
    let data = convert::octets(data)?;
    let (plaintext, summary) = py.detach(|| decryptor.decrypt_bytes(&data)).py(py)?;
    Ok(PyDecrypted {
        data: convert::bytes_wiping(py, plaintext),
        verifications: verifications(py, &summary.verifications)?.unbind(),
    })
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
    for key in convert::keys(key)? {
        signer = signer.key(key);
    }
    let data = convert::octets(data)?;
    let signature = py.detach(|| signer.sign_bytes(&data)).py(py)?;
    Ok(PyBytes::new(py, &signature))
}

/// Checks the detached `signature` over `data` against `certs`. Returns one `Verification` per
/// signature; a bad signature is a verdict, not an exception.
#[pyfunction]
#[pyo3(signature = (data, signature, certs))]
fn verify<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    signature: &Bound<'py, PyAny>,
    certs: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let verifier = Verifier::new(convert::certs(certs)?);
    let (data, signature) = (convert::octets(data)?, convert::octets(signature)?);
    let verdicts = py.detach(|| verifier.verify_bytes(&signature, &data)).py(py)?;
    verifications(py, &verdicts)
}

/// Decrypts many messages with the same keys and passwords, built once.
///
/// `decrypt_all(messages)` spreads a batch over `threads` threads (default: every core) with
/// the GIL released, and returns one entry per message, in order: the plaintext `bytes`, or
/// the exception (a `sixpgp.Error` instance) for a message that failed. `decrypt(message)`
/// decrypts one and raises.
///
/// A `Decryptor` pickles as its keys (unprotected, if they were unlocked) and passwords, so
/// that Spark and Dask can ship it; it is cheap to rebuild from key bytes instead.
#[pyclass(name = "Decryptor", module = "sixpgp", frozen)]
pub(crate) struct PyDecryptor {
    inner: Decryptor,
    keys: Vec<Py<PyKey>>,
    passwords: Vec<Password>,
    threads: Option<usize>,
    untrusted: bool,
}

impl PyDecryptor {
    /// The library's decryptor.
    pub(crate) fn library(&self) -> &Decryptor {
        &self.inner
    }
}

#[pymethods]
impl PyDecryptor {
    #[new]
    #[pyo3(signature = (keys = None, *, passwords = None, threads = None, untrusted = false))]
    fn new(
        py: Python<'_>,
        keys: Option<&Bound<'_, PyAny>>,
        passwords: Option<&Bound<'_, PyAny>>,
        threads: Option<usize>,
        untrusted: bool,
    ) -> PyResult<Self> {
        let none = py.None().into_bound(py);
        let keys = keys.unwrap_or(&none);
        let tsks = convert::keys(keys)?;
        let passwords = convert::passwords(passwords.unwrap_or(&none))?;
        let key_objects = tsks.iter().map(|t| Py::new(py, PyKey(Arc::clone(t)))).collect::<PyResult<_>>()?;
        Ok(Self {
            inner: decryptor(tsks, passwords.clone(), Vec::new(), threads, untrusted),
            keys: key_objects,
            passwords,
            threads,
            untrusted,
        })
    }

    /// Decrypts one message and returns its plaintext; raises a `sixpgp.Error` subclass.
    fn decrypt<'py>(&self, py: Python<'py>, message: &Bound<'py, PyAny>) -> PyResult<Py<PyBytes>> {
        let message = convert::octets(message)?;
        let (plaintext, _) = py.detach(|| self.inner.decrypt_bytes(&message)).py(py)?;
        Ok(convert::bytes_wiping(py, plaintext))
    }

    /// Decrypts every message of `messages` (an iterable of bytes or str) on the library's
    /// threads with the GIL released. Returns a list with, for each message in order, its
    /// plaintext or the exception object that says why it failed.
    fn decrypt_all<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let batch =
            messages.try_iter()?.map(|m| convert::octets(&m?)).collect::<PyResult<Vec<PyBackedBytes>>>()?;
        let results = py.detach(|| self.inner.decrypt_all(&batch));
        drop(batch);
        let out = PyList::empty(py);
        for result in results {
            match result {
                Ok((plaintext, _)) => out.append(convert::bytes_wiping(py, plaintext))?,
                Err(e) => out.append(to_py(py, e).into_value(py))?,
            }
        }
        Ok(out)
    }

    /// The thread count given (None: every core).
    #[getter]
    fn threads(&self) -> Option<usize> {
        self.threads
    }

    fn __repr__(&self) -> String {
        format!("<sixpgp.Decryptor {} keys, {} passwords>", self.keys.len(), self.passwords.len())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let restore = py.get_type::<PyDecryptor>().getattr("_restore")?;
        let keys = PyList::new(py, this.keys.iter().map(|k| k.clone_ref(py)))?;
        let passwords = PyList::new(py, this.passwords.iter().map(|p| PyBytes::new(py, p.as_bytes())))?;
        let args = (keys, passwords, this.threads, this.untrusted).into_pyobject(py)?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    /// Rebuilds a pickled `Decryptor`.
    #[staticmethod]
    fn _restore(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        passwords: &Bound<'_, PyAny>,
        threads: Option<usize>,
        untrusted: bool,
    ) -> PyResult<Self> {
        Self::new(py, Some(keys), Some(passwords), threads, untrusted)
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
