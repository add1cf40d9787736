//! The `sixpgp` Python extension module: a thin layer over the `sixpgp` crate's public API.
//!
//! Every call that does cryptographic work releases the GIL while the library runs
//! ([`Python::detach`]); the streaming functions take it back only to call `read` and `write`
//! on the caller's file objects. Library errors become exceptions of the `sixpgp.Error`
//! hierarchy in one place ([`errors::to_py`]).

#![forbid(unsafe_code)]

use pyo3::prelude::*;
use pyo3::types::PyTuple;

mod arrow;
mod batch;
mod convert;
mod errors;
mod keys;
mod message;
mod seekable;
mod stream;

/// The module `sixpgp`.
#[pymodule]
#[pyo3(name = "sixpgp")]
fn sixpgp_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__doc__", MODULE_DOC)?;
    errors::register(m)?;
    keys::register(m)?;
    message::register(m)?;
    stream::register(m)?;
    seekable::register(m)?;
    batch::register(m)?;
    arrow::register(m)?;
    let profiles = pyo3::types::PyDict::new(py);
    for profile in sixpgp::Profile::ALL {
        profiles.set_item(profile.name(), profile.description())?;
    }
    m.add("PROFILES", profiles)?;
    add_type_aliases(m)?;
    // `from .sixpgp import *` in the package's `__init__` (made by maturin) takes what is here.
    let mut names: Vec<String> = m.dict().keys().iter().map(|k| k.to_string()).collect();
    names.retain(|n| !n.starts_with('_') || n == "__version__");
    m.add("__all__", names)?;
    Ok(())
}

/// The type aliases the stubs name in signatures (`Data`, `Password`, `Keys`, `Passwords`,
/// `Recipients`), as objects of `typing`, so that code may name them at run time too.
fn add_type_aliases(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let typing = py.import("typing")?;
    let union = typing.getattr("Union")?;
    let iterable = typing.getattr("Iterable")?;
    let none = py.None().into_bound(py);
    let builtins = py.import("builtins")?;
    let builtin = |name: &str| builtins.getattr(name);
    let (bytes, bytearray, memoryview, str_) =
        (builtin("bytes")?, builtin("bytearray")?, builtin("memoryview")?, builtin("str")?);
    let (cert, key) = (py.get_type::<keys::PyCert>().into_any(), py.get_type::<keys::PyKey>().into_any());

    let data = union.get_item(types(py, &[&bytes, &bytearray, &memoryview, &str_])?)?;
    let password = union.get_item(types(py, &[&str_, &bytes, &bytearray])?)?;
    let cert_or_key = union.get_item(types(py, &[&cert, &key])?)?;
    let recipients = union.get_item(types(py, &[&cert, &key, &iterable.get_item(&cert_or_key)?, &none])?)?;
    let keys = union.get_item(types(py, &[&key, &iterable.get_item(&key)?, &none])?)?;
    let passwords = union.get_item(types(py, &[&password, &iterable.get_item(&password)?, &none])?)?;
    for (name, alias) in [
        ("Data", data),
        ("Password", password),
        ("Recipients", recipients),
        ("Keys", keys),
        ("Passwords", passwords),
    ] {
        m.add(name, alias)?;
    }
    Ok(())
}

/// A tuple of `items`, to subscript a `typing` form with.
fn types<'py>(py: Python<'py>, items: &[&Bound<'py, PyAny>]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, items.iter().copied())
}

/// The module's docstring, as `help(sixpgp)` shows it.
const MODULE_DOC: &str = "\
Modern OpenPGP for Python: v6 keys and signatures (RFC 9580), SEIPDv2 AEAD encryption,
Ed25519/X25519 and the post-quantum hybrids ML-KEM-768+X25519 and ML-DSA-65+Ed25519 (RFC 9980).

Keys: Key.generate, Key.from_bytes, Cert.from_bytes. Messages: encrypt, decrypt, sign, verify,
encrypt_stream, decrypt_stream. Many small messages: Decryptor(...).decrypt_all(messages), on all
cores with the GIL released. Errors: sixpgp.Error and its subclasses.

No keyring and no agent: keys are values the caller loads and keeps.";
