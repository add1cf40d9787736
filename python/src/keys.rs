//! `Key` (a secret key), `Cert` (a certificate) and `KeyInfo` (one key of a certificate).

use std::sync::Arc;
use std::time::SystemTime;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple, PyType};
use sixpgp::{Cert, KeyBuilder, KeyInfo, Limits, Profile, PublicKeyAlgorithm, Tsk};
use subtle::ConstantTimeEq;

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
        validity: Option<&Bound<'_, PyAny>>,
        signing_only: bool,
    ) -> PyResult<Self> {
        let profile = profile_named(profile)?;
        let mut builder = KeyBuilder::new(profile).user_id(user_id).signing_only(signing_only);
        if let Some(password) = password {
            builder = builder.password(convert::password(password, "password")?);
        }
        if let Some(validity) = validity.filter(|v| !v.is_none()) {
            builder = builder.validity(convert::validity(validity)?);
        }
        let tsk = py.detach(|| builder.generate()).py(py)?;
        Ok(Self(Arc::new(tsk)))
    }

    /// Loads one secret key, armored or binary. A locked key is unlocked with `password` if one
    /// is given (`BadPassword` if it opens nothing), and kept locked otherwise. `untrusted=True`
    /// applies the limits meant for input from anyone (to the parsing and to the password
    /// derivations a locked key asks for).
    #[staticmethod]
    #[pyo3(signature = (data, password = None, *, untrusted = false))]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        password: Option<&Bound<'_, PyAny>>,
        untrusted: bool,
    ) -> PyResult<Self> {
        let data = convert::octets(data, "data")?;
        let password = password.map(|p| convert::password(p, "password")).transpose()?;
        let limits = limits(untrusted);
        let tsk = py
            .detach(|| {
                let mut tsk = exactly_one(
                    Tsk::read_all_with_limits(&data[..], &limits)?,
                    "no secret key found",
                    "more than one secret key found",
                )?;
                if let Some(password) = password.filter(|_| tsk.is_locked()) {
                    let _ = tsk.unlock_with_limits(&password, &limits)?;
                }
                Ok(tsk)
            })
            .py(py)?;
        Ok(Self(Arc::new(tsk)))
    }

    /// Loads every secret key of a keyring (armored blocks or binary keys, one after another),
    /// as they are: locked keys stay locked (see `unlock`). `untrusted=True` applies the limits
    /// meant for input from anyone.
    #[classmethod]
    #[pyo3(signature = (data, *, untrusted = false))]
    fn read_all(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        untrusted: bool,
    ) -> PyResult<Vec<Self>> {
        let data = convert::octets(data, "data")?;
        let limits = limits(untrusted);
        let keys = py.detach(|| Tsk::read_all_with_limits(&data[..], &limits)).py(py)?;
        Ok(keys.into_iter().map(|k| Self(Arc::new(k))).collect())
    }

    /// A copy of this key with its secret material unlocked by `password`. `untrusted=True`
    /// bounds the password derivations the key may ask for by the limits meant for input from
    /// anyone.
    #[pyo3(signature = (password, *, untrusted = false))]
    fn unlock(&self, py: Python<'_>, password: &Bound<'_, PyAny>, untrusted: bool) -> PyResult<Self> {
        let password = convert::password(password, "password")?;
        let limits = limits(untrusted);
        let mut tsk = Tsk::clone(&self.0);
        let _ = py.detach(|| tsk.unlock_with_limits(&password, &limits)).py(py)?;
        Ok(Self(Arc::new(tsk)))
    }

    /// A copy of this key with its secret material locked by `password` (AES-256-OCB, Argon2).
    fn lock(&self, py: Python<'_>, password: &Bound<'_, PyAny>) -> PyResult<Self> {
        let password = convert::password(password, "password")?;
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
    fn armor<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        // Straight from the library's wiped buffer into the Python string.
        PyString::new(py, &self.0.to_armored())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_vec())
    }

    /// Equal if the fingerprints are and the secret serialisations are too, compared in
    /// constant time.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyKey>().is_ok_and(|o| {
            let other = &o.get().0;
            other.fingerprint() == self.0.fingerprint()
                && bool::from(other.to_vec().as_slice().ct_eq(self.0.to_vec().as_slice()))
        })
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
    /// `untrusted=True` applies the limits meant for input from anyone.
    #[staticmethod]
    #[pyo3(signature = (data, *, untrusted = false))]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>, untrusted: bool) -> PyResult<Self> {
        let data = convert::octets(data, "data")?;
        let limits = limits(untrusted);
        let cert = py
            .detach(|| {
                exactly_one(
                    Cert::read_all_with_limits(&data[..], &limits)?,
                    "no certificate found",
                    "more than one certificate found",
                )
            })
            .py(py)?;
        Ok(Self(Arc::new(cert)))
    }

    /// Loads every certificate of a keyring (armored or binary, one after another).
    /// `untrusted=True` applies the limits meant for input from anyone.
    #[classmethod]
    #[pyo3(signature = (data, *, untrusted = false))]
    fn read_all(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        untrusted: bool,
    ) -> PyResult<Vec<Self>> {
        let data = convert::octets(data, "data")?;
        let limits = limits(untrusted);
        let certs = py.detach(|| Cert::read_all_with_limits(&data[..], &limits)).py(py)?;
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

/// The limits for input from anyone, or the defaults.
pub(crate) fn limits(untrusted: bool) -> Limits {
    if untrusted { Limits::untrusted_input() } else { Limits::default() }
}

/// The one object of a keyring that should hold exactly one, as the library's `from_bytes`
/// takes it: `none` and `several` are the errors otherwise.
fn exactly_one<T>(mut all: Vec<T>, none: &'static str, several: &'static str) -> sixpgp::Result<T> {
    match (all.pop(), all.is_empty()) {
        (Some(one), true) => Ok(one),
        (None, _) => Err(sixpgp::Error::InvalidArgument(none)),
        (Some(_), false) => Err(sixpgp::Error::InvalidArgument(several)),
    }
}

/// Whether `obj` is one key or certificate (and not an iterable of them).
fn is_key_or_cert(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyKey>() || obj.is_instance_of::<PyCert>()
}

/// Certificates: a `Cert` or `Key` (its certificate), or an iterable of them. `param` names the
/// argument in a `TypeError`.
pub(crate) fn certs(obj: &Bound<'_, PyAny>, param: &str) -> PyResult<Vec<Arc<Cert>>> {
    const WHAT: &str = "a sixpgp.Cert or sixpgp.Key, or an iterable of them";
    convert::items(obj, param, WHAT, is_key_or_cert)?
        .iter()
        .map(|c| {
            if let Ok(cert) = c.cast::<PyCert>() {
                Ok(Arc::clone(&cert.get().0))
            } else if let Ok(key) = c.cast::<PyKey>() {
                Ok(Arc::new(key.get().0.to_cert()))
            } else {
                Err(convert::type_error(param, WHAT, c))
            }
        })
        .collect()
}

/// Secret keys: a `Key`, or an iterable of them. `param` names the argument in a `TypeError`.
pub(crate) fn keys(obj: &Bound<'_, PyAny>, param: &str) -> PyResult<Vec<Arc<Tsk>>> {
    const WHAT: &str = "a sixpgp.Key or an iterable of them";
    convert::items(obj, param, WHAT, is_key_or_cert)?
        .iter()
        .map(|k| {
            k.cast::<PyKey>()
                .map(|key| Arc::clone(&key.get().0))
                .map_err(|_| convert::type_error(param, WHAT, k))
        })
        .collect()
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
