//! `Key` (a secret key), `Cert` (a certificate) and `KeyInfo` (one key of a certificate).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple, PyType};
use sixpgp::{Cert, KeyBuilder, KeyInfo, Password, Profile, PublicKeyAlgorithm, Tsk};

use crate::convert;
use crate::errors::{IntoPyResult, InvalidArgument};

/// A secret key (OpenPGP "transferable secret key"): the certificate and its secret material.
///
/// Make one with `Key.generate` or load one with `Key.from_bytes`. `bytes(key)` is the binary
/// form and `key.armor()` the armored text: both contain the secret material (protected only if
/// the key is locked). Pickling keeps that form, so a pickled unlocked key is unprotected.
#[pyclass(name = "Key", module = "sixpgp", frozen)]
pub(crate) struct PyKey(pub(crate) Arc<Tsk>);

#[pymethods]
impl PyKey {
    /// Generates a new key for `user_id` with a profile from `sixpgp.PROFILES` ("default":
    /// Ed25519 and X25519; "security": ML-DSA-65+Ed25519 and ML-KEM-768+X25519;
    /// "pqc-encryption"). With `password` the secret material is locked with it (the returned
    /// key is locked: `unlock` it to use it); `validity` (seconds) makes it expire;
    /// `signing_only` leaves out the encryption subkey.
    #[staticmethod]
    #[pyo3(signature = (user_id, profile = "default", *, password = None, validity = None, signing_only = false))]
    fn generate(
        py: Python<'_>,
        user_id: String,
        profile: &str,
        password: Option<&Bound<'_, PyAny>>,
        validity: Option<u64>,
        signing_only: bool,
    ) -> PyResult<Self> {
        let profile = profile_named(profile)?;
        let mut builder = KeyBuilder::new(profile).user_id(user_id).signing_only(signing_only);
        if let Some(password) = password {
            builder = builder.password(Password::from(&convert::octets(password)?[..]));
        }
        if let Some(seconds) = validity {
            builder = builder.validity(Duration::from_secs(seconds));
        }
        let tsk = py.detach(|| builder.generate()).py(py)?;
        Ok(Self(Arc::new(tsk)))
    }

    /// Loads one secret key, armored or binary. A locked key is unlocked with `password` if one
    /// is given (`BadPassword` if it opens nothing), and kept locked otherwise.
    #[staticmethod]
    #[pyo3(signature = (data, password = None))]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        password: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let data = convert::octets(data)?;
        let password = password.map(|p| convert::octets(p).map(|p| Password::from(&p[..]))).transpose()?;
        let tsk = py
            .detach(|| {
                let mut tsk = Tsk::from_bytes(&data)?;
                if let Some(password) = password.filter(|_| tsk.is_locked()) {
                    let _ = tsk.unlock(&password)?;
                }
                Ok(tsk)
            })
            .py(py)?;
        Ok(Self(Arc::new(tsk)))
    }

    /// A copy of this key with its secret material unlocked by `password`.
    fn unlock(&self, py: Python<'_>, password: &Bound<'_, PyAny>) -> PyResult<Self> {
        let password = Password::from(&convert::octets(password)?[..]);
        let mut tsk = Tsk::clone(&self.0);
        let _ = py.detach(|| tsk.unlock(&password)).py(py)?;
        Ok(Self(Arc::new(tsk)))
    }

    /// A copy of this key with its secret material locked by `password` (AES-256-OCB, Argon2).
    fn lock(&self, py: Python<'_>, password: &Bound<'_, PyAny>) -> PyResult<Self> {
        let password = Password::from(&convert::octets(password)?[..]);
        let mut tsk = Tsk::clone(&self.0);
        py.detach(|| tsk.lock(&password)).py(py)?;
        Ok(Self(Arc::new(tsk)))
    }

    /// Whether the secret material is locked with a password.
    #[getter]
    fn locked(&self) -> bool {
        self.0.is_locked()
    }

    /// The certificate (public part).
    #[getter]
    fn cert(&self) -> PyCert {
        PyCert(Arc::new(self.0.to_cert()))
    }

    /// The primary key's fingerprint: 64 upper-case hex digits.
    #[getter]
    fn fingerprint(&self) -> String {
        self.0.fingerprint().to_string()
    }

    /// The certificate's user IDs.
    #[getter]
    fn user_ids(&self) -> Vec<String> {
        user_ids(self.0.cert())
    }

    /// The keys of the certificate.
    #[getter]
    fn keys(&self) -> Vec<PyKeyInfo> {
        key_infos(self.0.cert())
    }

    /// The armored form (`-----BEGIN PGP PRIVATE KEY BLOCK-----`).
    fn armor(&self) -> String {
        self.0.to_armored().to_string()
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_vec())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyKey>().is_ok_and(|o| o.get().0.to_vec() == self.0.to_vec())
    }

    fn __hash__(&self) -> u64 {
        fingerprint_hash(&self.0.fingerprint())
    }

    fn __repr__(&self) -> String {
        format!("<sixpgp.Key {}{}>", self.0.fingerprint(), if self.0.is_locked() { " locked" } else { "" })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let load = py.get_type::<PyKey>().getattr("from_bytes")?;
        let data = PyBytes::new(py, &slf.get().0.to_vec());
        PyTuple::new(py, [load, PyTuple::new(py, [data])?.into_any()])
    }
}

/// A certificate (OpenPGP "transferable public key"): what others encrypt to and verify with.
///
/// `bytes(cert)` is the binary form and `cert.armor()` the armored text.
#[pyclass(name = "Cert", module = "sixpgp", frozen)]
pub(crate) struct PyCert(pub(crate) Arc<Cert>);

#[pymethods]
impl PyCert {
    /// Loads one certificate, armored or binary (the public part of a secret key too).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let data = convert::octets(data)?;
        let cert = py.detach(|| Cert::from_bytes(&data)).py(py)?;
        Ok(Self(Arc::new(cert)))
    }

    /// Loads every certificate of a keyring (armored or binary, one after another).
    #[classmethod]
    fn read_all(_cls: &Bound<'_, PyType>, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Vec<Self>> {
        let data = convert::octets(data)?;
        let certs = py.detach(|| Cert::read_all(&data[..])).py(py)?;
        Ok(certs.into_iter().map(|c| Self(Arc::new(c))).collect())
    }

    /// The primary key's fingerprint: 64 upper-case hex digits.
    #[getter]
    fn fingerprint(&self) -> String {
        self.0.fingerprint().to_string()
    }

    /// The user IDs, in order (invalid UTF-8 replaced).
    #[getter]
    fn user_ids(&self) -> Vec<String> {
        user_ids(&self.0)
    }

    /// The primary key, then each subkey.
    #[getter]
    fn keys(&self) -> Vec<PyKeyInfo> {
        key_infos(&self.0)
    }

    /// The armored form (`-----BEGIN PGP PUBLIC KEY BLOCK-----`).
    fn armor(&self) -> String {
        self.0.to_armored()
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_vec())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyCert>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        fingerprint_hash(&self.0.fingerprint())
    }

    fn __repr__(&self) -> String {
        format!("<sixpgp.Cert {}>", self.0.fingerprint())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let load = py.get_type::<PyCert>().getattr("from_bytes")?;
        let data = PyBytes::new(py, &slf.get().0.to_vec());
        PyTuple::new(py, [load, PyTuple::new(py, [data])?.into_any()])
    }
}

/// One key of a certificate (the primary key or a subkey), evaluated now.
#[pyclass(name = "KeyInfo", module = "sixpgp", frozen)]
pub(crate) struct PyKeyInfo {
    /// The key's fingerprint.
    #[pyo3(get)]
    fingerprint: String,
    /// The algorithm: "Ed25519", "X25519", "ML-DSA-65+Ed25519", "ML-KEM-768+X25519", or
    /// "unknown(N)".
    #[pyo3(get)]
    algorithm: String,
    /// What the key may do: "certify", "sign", "encrypt-communications", "encrypt-storage".
    #[pyo3(get)]
    flags: Vec<&'static str>,
    /// Whether this is the primary key.
    #[pyo3(get)]
    primary: bool,
    /// Whether the key is revoked.
    #[pyo3(get)]
    revoked: bool,
    /// Why the key is not usable now ("expired", "revoked", ...), or None if it is.
    #[pyo3(get)]
    problem: Option<&'static str>,
    created: SystemTime,
    expires: Option<SystemTime>,
}

#[pymethods]
impl PyKeyInfo {
    /// When the key was created (a UTC `datetime`).
    #[getter]
    fn created(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::datetime(py, self.created)
    }

    /// When the key expires (a UTC `datetime`), or None if it does not.
    #[getter]
    fn expires(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.expires.map(|t| convert::datetime(py, t)).transpose()
    }

    fn __repr__(&self) -> String {
        format!("<sixpgp.KeyInfo {} {} {:?}>", self.fingerprint, self.algorithm, self.flags)
    }
}

/// A profile by its `sixsop list-profiles` name or an alias.
fn profile_named(name: &str) -> PyResult<Profile> {
    Profile::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        InvalidArgument::new_err(format!("unknown profile {name:?} (known: {})", known.join(", ")))
    })
}

fn user_ids(cert: &Cert) -> Vec<String> {
    cert.user_id_strings().map(|u| u.into_owned()).collect()
}

fn key_infos(cert: &Cert) -> Vec<PyKeyInfo> {
    let now = SystemTime::now();
    cert.keys().map(|k| key_info(&k, now)).collect()
}

fn key_info(key: &KeyInfo<'_>, now: SystemTime) -> PyKeyInfo {
    PyKeyInfo {
        fingerprint: key.fingerprint().to_string(),
        algorithm: algorithm_name(key.algorithm()),
        flags: key.flags(now).names(),
        primary: key.is_primary(),
        revoked: key.is_revoked(now),
        problem: key.validity(now).err().map(crate::errors::problem_code),
        created: key.creation_time(),
        expires: key.expiration_time(now),
    }
}

fn algorithm_name(algorithm: PublicKeyAlgorithm) -> String {
    match algorithm {
        PublicKeyAlgorithm::Ed25519 => "Ed25519".into(),
        PublicKeyAlgorithm::X25519 => "X25519".into(),
        PublicKeyAlgorithm::MlDsa65Ed25519 => "ML-DSA-65+Ed25519".into(),
        PublicKeyAlgorithm::MlKem768X25519 => "ML-KEM-768+X25519".into(),
        other => format!("unknown({})", u8::from(other)),
    }
}

/// A hash from the fingerprint's first octets (already uniformly distributed).
fn fingerprint_hash(fingerprint: &sixpgp::Fingerprint) -> u64 {
    fingerprint.as_bytes().first_chunk::<8>().map_or(0, |first| u64::from_be_bytes(*first))
}

/// Adds the classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyKey>()?;
    m.add_class::<PyCert>()?;
    m.add_class::<PyKeyInfo>()?;
    Ok(())
}
