//! Python arguments to plain values (octets, passwords, counts, durations, paths), and plain
//! values to Python objects. Nothing here knows the binding's classes: keys and certificates are
//! extracted in `keys`.

use std::ops::Deref;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDelta, PyInt, PyMemoryView, PySlice, PyString};
use sixpgp::Password;
use zeroize::Zeroizing;

/// Octets taken from a Python argument.
pub(crate) enum Octets {
    /// A `bytes` object's own buffer (or the UTF-8 encoding of a `str`), borrowed: immutable,
    /// so a batch costs no copy.
    Borrowed(PyBackedBytes),
    /// A copy of a mutable buffer (`bytearray`, `memoryview`, ...), taken under the GIL so
    /// that no other thread changes it while the library reads it, and wiped on drop: it may
    /// be a password or plaintext.
    Copied(Zeroizing<Vec<u8>>),
}

impl Deref for Octets {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Self::Borrowed(b) => b,
            Self::Copied(c) => c,
        }
    }
}

impl AsRef<[u8]> for Octets {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// Whether `obj` is one piece of data (and not an iterable of them): `bytes`, `bytearray`,
/// `memoryview` or `str`.
pub(crate) fn is_data(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyMemoryView>()
        || obj.is_instance_of::<PyString>()
}

/// Octets from `bytes`, `bytearray`, `str` (UTF-8, as armored text is), or any other object
/// with the buffer protocol (`memoryview`, `array`, `mmap`, ...). `param` names the argument in
/// the `TypeError` for anything else.
pub(crate) fn octets(obj: &Bound<'_, PyAny>, param: &str) -> PyResult<Octets> {
    if obj.is_instance_of::<PyBytes>() {
        return Ok(Octets::Borrowed(obj.extract::<PyBackedBytes>()?));
    }
    if let Ok(text) = obj.cast::<PyString>() {
        return Ok(Octets::Borrowed(text.encode_utf8()?.extract::<PyBackedBytes>()?));
    }
    if let Ok(array) = obj.cast::<PyByteArray>() {
        return Ok(Octets::Copied(Zeroizing::new(array.to_vec())));
    }
    // Any other buffer: through a `bytearray` of our own (the stable ABI of Python 3.9 has no
    // direct access to a buffer), wiped in place once it is copied.
    let view = PyMemoryView::from(obj).map_err(|_| {
        let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!(
            "{param}: expected bytes, bytearray, memoryview or str, not {type_name}"
        ))
    })?;
    let array = PyByteArray::from(view.as_any())?;
    let copied = Zeroizing::new(array.to_vec());
    let zeros = PyBytes::new_with(obj.py(), copied.len(), |_| Ok(()))?;
    array.set_item(PySlice::full(obj.py()), zeros)?;
    Ok(Octets::Copied(copied))
}

/// `obj` as a list of items: none for `None`, one if `single` says it is one, else its
/// elements. `what` says what was expected, for the `TypeError` naming `param`.
pub(crate) fn items<'py>(
    obj: &Bound<'py, PyAny>,
    param: &str,
    what: &str,
    single: impl Fn(&Bound<'py, PyAny>) -> bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.is_none() {
        return Ok(Vec::new());
    }
    if single(obj) {
        return Ok(vec![obj.clone()]);
    }
    match obj.try_iter() {
        Ok(iter) => iter.collect(),
        Err(_) => Err(type_error(param, what, obj)),
    }
}

/// The items of a batch argument (`param`, an iterable of `noun`s), each as octets. One lone
/// `bytes` or `str` is refused rather than iterated octet by octet; `one` names the call for it.
pub(crate) fn batch(obj: &Bound<'_, PyAny>, param: &str, noun: &str, one: &str) -> PyResult<Vec<Octets>> {
    if is_data(obj) {
        return Err(PyTypeError::new_err(format!(
            "{param}: expected an iterable of {noun}s, not one {noun}; use {one} for one"
        )));
    }
    obj.try_iter()
        .map_err(|_| type_error(param, &format!("an iterable of {noun}s"), obj))?
        .map(|item| octets(&item?, param))
        .collect()
}

/// A `TypeError` saying that `param` expected `what`, and naming the type `obj` has.
pub(crate) fn type_error(param: &str, what: &str, obj: &Bound<'_, PyAny>) -> PyErr {
    let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    PyTypeError::new_err(format!("{param}: expected {what}, not {type_name}"))
}

/// Passwords: one `str`/`bytes`/`bytearray`, or an iterable of them.
pub(crate) fn passwords(obj: &Bound<'_, PyAny>, param: &str) -> PyResult<Vec<Password>> {
    items(obj, param, "a password (str or bytes) or an iterable of them", is_data)?
        .iter()
        .map(|p| password(p, param))
        .collect()
}

/// One password.
pub(crate) fn password(obj: &Bound<'_, PyAny>, param: &str) -> PyResult<Password> {
    Ok(Password::from(&octets(obj, param)?[..]))
}

/// A thread count: `None` (every core) or a positive `int`.
pub(crate) fn threads(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else { return Ok(None) };
    if !obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyBool>() {
        return Err(type_error("threads", "an int or None", obj));
    }
    match obj.extract::<usize>() {
        Ok(n) if n >= 1 => Ok(Some(n)),
        _ => Err(PyValueError::new_err(format!(
            "threads: expected at least 1 (or None for every core), not {obj}"
        ))),
    }
}

/// A validity period: a positive number of seconds (`int`) or a positive `datetime.timedelta`
/// (whole seconds).
pub(crate) fn validity(obj: &Bound<'_, PyAny>) -> PyResult<Duration> {
    let seconds = if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        obj.extract::<i128>()?
    } else if obj.is_instance_of::<PyDelta>() {
        // Normalised by `timedelta` itself: 0 <= seconds < 86400; microseconds are dropped.
        let days = obj.getattr("days")?.extract::<i128>()?;
        let seconds = obj.getattr("seconds")?.extract::<i128>()?;
        days.checked_mul(86_400).and_then(|d| d.checked_add(seconds)).unwrap_or(-1)
    } else {
        return Err(type_error("validity", "seconds (int) or a datetime.timedelta", obj));
    };
    u64::try_from(seconds)
        .ok()
        .filter(|s| *s >= 1)
        .map(Duration::from_secs)
        .ok_or_else(|| PyValueError::new_err(format!("validity: expected at least one second, not {obj}")))
}

/// The path of `obj` if it is one: a `str` or an `os.PathLike`.
pub(crate) fn path(obj: &Bound<'_, PyAny>) -> PyResult<Option<PathBuf>> {
    let py = obj.py();
    let path_like = py.import("os")?.getattr("PathLike")?;
    if obj.is_instance_of::<PyString>() || obj.is_instance(&path_like)? {
        Ok(Some(obj.extract::<PathBuf>()?))
    } else {
        Ok(None)
    }
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
