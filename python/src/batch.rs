//! `Encryptor`: many values encrypted to the same recipients, on all cores with the GIL
//! released.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use sixpgp::{Cert, Encryptor, Password, Signer, Tsk};

use crate::convert;
use crate::errors::IntoPyResult;
use crate::keys::{self, PyCert, PyKey};

/// Encrypts many values, each as a message of its own, to the same `recipients` (certificates
/// or keys) and/or `passwords`, each signed inside the encryption by `signer` (a key, or
/// several) if given.
///
/// `encrypt_all(values)` spreads a batch over `threads` threads (default: every core) with the
/// GIL released and returns one message per value, in order; the certificates are checked once
/// per batch, so each message costs its own key agreement (and signature) and little more.
/// Output is binary unless `armor=True`. An `Encryptor` pickles as its certificates, passwords
/// and signing keys (unprotected, if they were unlocked).
#[pyclass(name = "Encryptor", module = "sixpgp", frozen)]
pub(crate) struct PyEncryptor {
    certs: Vec<Arc<Cert>>,
    passwords: Vec<Password>,
    signers: Vec<Arc<Tsk>>,
    armor: bool,
    threads: Option<usize>,
}

impl PyEncryptor {
    /// The library's builder for one batch.
    pub(crate) fn library(&self) -> Encryptor {
        let mut encryptor = Encryptor::new(self.certs.iter().cloned()).armor(self.armor);
        for password in &self.passwords {
            encryptor = encryptor.password(password.clone());
        }
        for signer in &self.signers {
            encryptor = encryptor.signer(Arc::clone(signer));
        }
        if let Some(threads) = self.threads {
            encryptor = encryptor.threads(threads);
        }
        encryptor
    }
}

#[pymethods]
impl PyEncryptor {
    #[new]
    #[pyo3(signature = (recipients = None, *, passwords = None, signer = None, armor = false, threads = None))]
    fn new(
        py: Python<'_>,
        recipients: Option<&Bound<'_, PyAny>>,
        passwords: Option<&Bound<'_, PyAny>>,
        signer: Option<&Bound<'_, PyAny>>,
        armor: bool,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let none = py.None().into_bound(py);
        let this = Self {
            certs: keys::certs(recipients.unwrap_or(&none), "recipients")?,
            passwords: convert::passwords(passwords.unwrap_or(&none), "passwords")?,
            signers: keys::keys(signer.unwrap_or(&none), "signer")?,
            armor,
            threads: convert::threads(threads)?,
        };
        // The recipients and signing keys are checked now, not at the first batch: a locked or
        // unusable signing key fails here as it would for every message.
        drop(py.detach(|| this.library().encrypt_all(&[[0u8; 0]; 0])).py(py)?);
        if !this.signers.is_empty() {
            let signer = this.signers.iter().cloned().fold(Signer::new(), Signer::key);
            drop(py.detach(|| signer.detached()).py(py)?);
        }
        Ok(this)
    }

    /// Encrypts every value of `values` (an iterable of bytes or str) on the library's threads
    /// with the GIL released, and returns the messages in order.
    fn encrypt_all<'py>(&self, py: Python<'py>, values: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let batch = convert::batch(values, "values", "value", "sixpgp.encrypt(value, recipients)")?;
        let messages = py.detach(|| self.library().encrypt_all(&batch)).py(py)?;
        PyList::new(py, messages.iter().map(|m| PyBytes::new(py, m)))
    }

    /// The thread count given (None: every core).
    #[getter]
    fn threads(&self) -> Option<usize> {
        self.threads
    }

    fn __repr__(&self) -> String {
        format!(
            "<sixpgp.Encryptor {} recipients, {} passwords, {} signers>",
            self.certs.len(),
            self.passwords.len(),
            self.signers.len()
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let restore = py.get_type::<PyEncryptor>().getattr("_restore")?;
        let certs = PyList::new(py, this.certs.iter().map(|c| PyCert(Arc::clone(c))))?;
        let passwords = PyList::new(py, this.passwords.iter().map(|p| PyBytes::new(py, p.as_bytes())))?;
        let signers = PyList::new(py, this.signers.iter().map(|k| PyKey(Arc::clone(k))))?;
        let args = (certs, passwords, signers, this.armor, this.threads).into_pyobject(py)?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    /// Rebuilds a pickled `Encryptor`.
    #[staticmethod]
    fn _restore(
        py: Python<'_>,
        certs: &Bound<'_, PyAny>,
        passwords: &Bound<'_, PyAny>,
        signers: &Bound<'_, PyAny>,
        armor: bool,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Self::new(py, Some(certs), Some(passwords), Some(signers), armor, threads)
    }
}

/// Adds the class to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEncryptor>()
}
