//! Arrow binary columns in and out of the batch calls, with no Python object per value: the
//! Python side (`sixpgp.dataframe`) hands over an array's buffers (validity bitmap, offsets,
//! values) as `bytes`, and builds arrays from the `bytes` returned here, so the protocol work
//! sees only octets, with the GIL released. (The buffer protocol is not in the stable ABI
//! before Python 3.11, so the buffers come as `bytes`, one copy made by pyarrow.)

use std::ops::Range;

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

use crate::batch::PyEncryptor;
use crate::errors::IntoPyResult;
use crate::message::{PyDecryptor, signed_as_required};

/// One Arrow column's buffers as returned to Python: the validity bitmap (None when no value is
/// null), the offsets (32 or 64 bits, little-endian) and the values one after another.
type Buffers<'py> = (Option<Bound<'py, PyBytes>>, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

/// An array's parts as `sixpgp.dataframe` hands them over: validity bitmap (None: no null),
/// offsets and values, then the array's offset and length in them, and whether the offsets are
/// 64-bit (`large_binary`).
type Parts = (Option<PyBackedBytes>, PyBackedBytes, PyBackedBytes, usize, usize, bool);

/// A binary column as Python hands it over: `length` values from `offset` on.
struct Column {
    /// The values' octets, borrowed from the Python `bytes`.
    data: PyBackedBytes,
    /// Each value's range in `data`, or None for a null.
    values: Vec<Option<Range<usize>>>,
}

impl Column {
    /// Reads and checks the buffers of a `binary` (32-bit offsets) or `large_binary` (`wide`)
    /// array: offsets must rise and stay within the values.
    fn new((validity, offsets, data, offset, length, wide): Parts) -> PyResult<Self> {
        let width = if wide { 8 } else { 4 };
        let bounds = offset.checked_add(length).ok_or_else(|| PyValueError::new_err("array length"))?;
        let read = |i: usize| -> PyResult<usize> {
            let at = i.checked_mul(width).ok_or_else(|| PyValueError::new_err("offsets"))?;
            let raw = offsets
                .get(at..at.saturating_add(width))
                .ok_or_else(|| PyValueError::new_err("offsets too short"))?;
            let value = if wide {
                i64::from_le_bytes(raw.try_into().unwrap_or_default())
            } else {
                i64::from(i32::from_le_bytes(raw.try_into().unwrap_or_default()))
            };
            usize::try_from(value).map_err(|_| PyValueError::new_err("negative offset"))
        };
        let mut values = Vec::with_capacity(length);
        if length == 0 {
            // An empty array may come without offsets.
            return Ok(Self { data, values });
        }
        let mut start = read(offset)?;
        for i in offset..bounds {
            let end = read(i.saturating_add(1))?;
            if end < start || end > data.len() {
                return Err(PyValueError::new_err("offsets out of order or past the values"));
            }
            let valid = match &validity {
                None => true,
                Some(bits) => {
                    bits.get(i / 8).ok_or_else(|| PyValueError::new_err("validity too short"))?
                        & (1 << (i % 8))
                        != 0
                }
            };
            values.push(valid.then_some(start..end));
            start = end;
        }
        Ok(Self { data, values })
    }

    /// The non-null values, in order.
    fn present(&self) -> Vec<&[u8]> {
        self.values.iter().flatten().map(|r| self.data.get(r.clone()).unwrap_or_default()).collect()
    }
}

/// The buffers of a column holding `values` (None: null), with 64-bit offsets if `wide`. The
/// values are written straight into the returned `bytes`.
fn to_arrow<'py, T: AsRef<[u8]>>(
    py: Python<'py>,
    values: &[Option<T>],
    wide: bool,
) -> PyResult<Buffers<'py>> {
    let total = values.iter().flatten().fold(0usize, |n, v| n.saturating_add(v.as_ref().len()));
    if !wide && i32::try_from(total).is_err() {
        return Err(PyOverflowError::new_err("more than 2 GiB in one batch: use large_binary"));
    }
    let mut offsets =
        Vec::with_capacity(values.len().saturating_add(1).saturating_mul(if wide { 8 } else { 4 }));
    let mut push = |at: usize| {
        if wide {
            offsets.extend_from_slice(&i64::try_from(at).unwrap_or(i64::MAX).to_le_bytes());
        } else {
            // Checked above: the total fits.
            offsets.extend_from_slice(&i32::try_from(at).unwrap_or(i32::MAX).to_le_bytes());
        }
    };
    let mut validity = vec![0u8; values.len().div_ceil(8)];
    let (mut at, mut nulls) = (0usize, 0usize);
    push(at);
    for (i, value) in values.iter().enumerate() {
        match value {
            Some(v) => {
                at = at.saturating_add(v.as_ref().len());
                if let Some(bits) = validity.get_mut(i / 8) {
                    *bits |= 1 << (i % 8);
                }
            }
            None => nulls = nulls.saturating_add(1),
        }
        push(at);
    }
    let data = PyBytes::new_with(py, total, |out| {
        let mut rest = out;
        for v in values.iter().flatten() {
            let v = v.as_ref();
            let (head, tail) =
                rest.split_at_mut_checked(v.len()).ok_or_else(|| PyValueError::new_err("values"))?;
            head.copy_from_slice(v);
            rest = tail;
        }
        Ok(())
    })?;
    let validity = (nulls > 0).then(|| PyBytes::new(py, &validity));
    Ok((validity, PyBytes::new(py, &offsets), data))
}

/// Decrypts a binary column with a `Decryptor` (its `decrypt_all`, GIL released). Returns the
/// plaintext column's buffers (same offset width as the input; null where the message is null
/// or failed) and the error column's (32-bit offsets, UTF-8 "ExceptionClass: message"; null
/// where the message is null or decrypted).
#[pyfunction]
fn _decrypt_arrow<'py>(
    py: Python<'py>,
    decryptor: &PyDecryptor,
    column: Parts,
) -> PyResult<(Buffers<'py>, Buffers<'py>)> {
    let (wide, column) = (column.5, Column::new(column)?);
    let mut results = py.detach(|| decryptor.library().decrypt_all(&column.present())).into_iter();
    let mut plaintexts: Vec<Option<Zeroizing<Vec<u8>>>> = Vec::with_capacity(column.values.len());
    let mut errors: Vec<Option<String>> = Vec::with_capacity(column.values.len());
    for value in &column.values {
        let result = if value.is_some() { results.next() } else { None };
        match result.map(|r| signed_as_required(py, decryptor.require_signature(), r)) {
            None => {
                plaintexts.push(None);
                errors.push(None);
            }
            Some(Ok((plaintext, _))) => {
                plaintexts.push(Some(Zeroizing::new(plaintext)));
                errors.push(None);
            }
            Some(Err(e)) => {
                plaintexts.push(None);
                errors.push(Some(describe(py, &e)?));
            }
        }
    }
    let plain = to_arrow(py, &plaintexts, wide)?;
    drop(plaintexts);
    Ok((plain, to_arrow(py, &errors, false)?))
}

/// "ExceptionClass: message", as an error column holds it.
fn describe(py: Python<'_>, err: &PyErr) -> PyResult<String> {
    Ok(format!("{}: {}", err.get_type(py).name()?, err.value(py)))
}

/// Encrypts a binary column with an `Encryptor` (its `encrypt_all`, GIL released). Returns the
/// messages column's buffers (same offset width as the input when it fits; null where the
/// value is null).
#[pyfunction]
fn _encrypt_arrow<'py>(py: Python<'py>, encryptor: &PyEncryptor, column: Parts) -> PyResult<Buffers<'py>> {
    let (wide, column) = (column.5, Column::new(column)?);
    let mut messages = py.detach(|| encryptor.library().encrypt_all(&column.present())).py(py)?.into_iter();
    let out: Vec<Option<Vec<u8>>> =
        column.values.iter().map(|v| if v.is_some() { messages.next() } else { None }).collect();
    to_arrow(py, &out, wide)
}

/// Adds the functions to the module (private: `sixpgp.dataframe` calls them).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_decrypt_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(_encrypt_arrow, m)?)?;
    Ok(())
}
