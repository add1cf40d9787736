//! Python arguments to library values, and library values to Python objects.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};
use sixpgp::{Cert, Password, Tsk};

use crate::keys::{PyCert, PyKey};

/// Octets from `bytes`, `bytearray`, `memoryview` or `str` (UTF-8, as armored text is). Bytes
/// are borrowed from the Python object, so a batch costs no copy.
pub(crate) fn octets(obj: &Bound<'_, PyAny>) -> PyResult<PyBackedBytes> {
    if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
        return obj.extract::<PyBackedBytes>().map_err(PyErr::from);
    }
    let copied = if let Ok(text) = obj.cast::<PyString>() {
        PyBytes::new(obj.py(), text.to_cow()?.as_bytes())
    } else if obj.is_instance_of::<PyMemoryView>() {
        obj.call_method0("tobytes")?.cast_into::<PyBytes>()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected bytes, bytearray, memoryview or str, not {}",
            obj.get_type().name()?
        )));
    };
    copied.extract::<PyBackedBytes>().map_err(PyErr::from)
}

/// `obj` as a list of items: one item if it is `single`-like (a str, bytes, key or certificate),
/// else its elements. `None` is no item.
fn items<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.is_none() {
        return Ok(Vec::new());
    }
    let single = obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyKey>()
        || obj.is_instance_of::<PyCert>();
    if single { Ok(vec![obj.clone()]) } else { obj.try_iter()?.collect() }
}

/// Passwords: one `str`/`bytes`, or an iterable of them.
pub(crate) fn passwords(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Password>> {
    items(obj)?.iter().map(|p| Ok(Password::from(&octets(p)?[..]))).collect()
}

/// Certificates: a `Cert` or `Key` (its certificate), or an iterable of them.
pub(crate) fn certs(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Arc<Cert>>> {
    items(obj)?
        .iter()
        .map(|c| {
            if let Ok(cert) = c.cast::<PyCert>() {
                Ok(Arc::clone(&cert.get().0))
            } else if let Ok(key) = c.cast::<PyKey>() {
                Ok(Arc::new(key.get().0.to_cert()))
            } else {
                Err(PyTypeError::new_err(format!(
                    "expected a sixpgp.Cert or sixpgp.Key, not {}",
                    c.get_type().name()?
                )))
            }
        })
        .collect()
}

/// Secret keys: a `Key`, or an iterable of them.
pub(crate) fn keys(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Arc<Tsk>>> {
    items(obj)?
        .iter()
        .map(|k| {
            k.cast::<PyKey>().map(|key| Arc::clone(&key.get().0)).map_err(|_| {
                let name = k.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                PyTypeError::new_err(format!("expected a sixpgp.Key, not {name}"))
            })
        })
        .collect()
}

/// A `datetime.datetime` in UTC.
pub(crate) fn datetime(py: Python<'_>, t: SystemTime) -> PyResult<Py<PyAny>> {
    let seconds = t.duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let module = py.import("datetime")?;
    let utc = module.getattr("timezone")?.getattr("utc")?;
    Ok(module.getattr("datetime")?.call_method1("fromtimestamp", (seconds, utc))?.unbind())
}

/// A Python `bytes` with `data`, whose Rust copy is then wiped (it may be plaintext).
pub(crate) fn bytes_wiping(py: Python<'_>, mut data: Vec<u8>) -> Py<PyBytes> {
    let out = PyBytes::new(py, &data).unbind();
    zeroize::Zeroize::zeroize(&mut data);
    out
}
