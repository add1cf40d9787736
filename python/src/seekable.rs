//! `EncryptedFile`: a read-only, seekable binary file over an encrypted file on disk, on the
//! library's `SeekableReader`. Each call releases the GIL while the library reads and
//! decrypts.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::{PyIOError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PySlice};
use sixpgp::SeekableReader;
use zeroize::Zeroizing;

use crate::errors::to_py;
use crate::message::decryptor_from_args;

/// A read-only, seekable binary file over the plaintext of a binary encrypted file: only the
/// chunks a read touches are decrypted, each authenticated before any of it is returned.
/// `finish()` (or reading to the end) checks the end of the message, which catches a
/// truncated file. Signatures inside are never checked.
#[pyclass(module = "sixpgp", frozen)]
pub(crate) struct EncryptedFile {
    /// `None` once closed.
    reader: Mutex<Option<SeekableReader<File>>>,
}

/// A library error raised from an I/O error.
fn from_io(py: Python<'_>, e: std::io::Error) -> PyErr {
    to_py(py, sixpgp::Error::from_io(e))
}

impl EncryptedFile {
    fn lock(&self) -> PyResult<MutexGuard<'_, Option<SeekableReader<File>>>> {
        self.reader.lock().map_err(|_| PyIOError::new_err("the file is broken by an earlier panic"))
    }

    /// Runs `f` on the open reader with the GIL released.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut SeekableReader<File>) -> std::io::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let mut guard = self.lock()?;
            let reader =
                guard.as_mut().ok_or_else(|| PyValueError::new_err("I/O operation on closed file"))?;
            Ok::<_, PyErr>(f(reader))
        })?
        .map_err(|e| from_io(py, e))
    }
}

/// Reads up to `size` octets (to the end if `size` is `None`), into memory wiped once Python
/// has its copy.
fn read_up_to(reader: &mut SeekableReader<File>, size: Option<usize>) -> std::io::Result<Zeroizing<Vec<u8>>> {
    let mut out = Zeroizing::new(Vec::new());
    match size {
        None => {
            let _ = reader.read_to_end(&mut out)?;
        }
        Some(n) => {
            let _ = reader.take(u64::try_from(n).unwrap_or(u64::MAX)).read_to_end(&mut out)?;
        }
    }
    Ok(out)
}

#[pymethods]
impl EncryptedFile {
    /// Opens the encrypted file at `path` with `keys` or `passwords`.
    #[new]
    /// `untrusted=True` applies the limits meant for input from anyone.
    #[pyo3(signature = (path, keys = None, *, passwords = None, untrusted = false))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        keys: Option<&Bound<'_, PyAny>>,
        passwords: Option<&Bound<'_, PyAny>>,
        untrusted: bool,
    ) -> PyResult<Self> {
        let decryptor = decryptor_from_args(py, keys, passwords, None, false, untrusted)?;
        let reader = py
            .detach(|| {
                let file = File::open(&path).map_err(sixpgp::Error::from)?;
                decryptor.seekable_reader(file)
            })
            .map_err(|e| to_py(py, e))?;
        Ok(Self { reader: Mutex::new(Some(reader)) })
    }

    /// Reads up to `size` octets (all that is left if `size` is negative or `None`).
    #[pyo3(signature = (size = -1))]
    fn read<'py>(&self, py: Python<'py>, size: Option<i64>) -> PyResult<Bound<'py, PyBytes>> {
        let size = size.and_then(|n| usize::try_from(n).ok());
        let out = self.with(py, |r| read_up_to(r, size))?;
        Ok(PyBytes::new(py, &out))
    }

    /// Reads all that is left.
    fn readall<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.read(py, None)
    }

    /// Reads into a writable buffer (a `bytearray` or `memoryview`); returns the octets read
    /// (0 at the end).
    fn readinto(&self, py: Python<'_>, buffer: &Bound<'_, PyAny>) -> PyResult<usize> {
        let len = buffer.len()?;
        let out = self.with(py, |r| read_up_to(r, Some(len)))?;
        let end = isize::try_from(out.len()).map_err(|_| PyValueError::new_err("read too long"))?;
        buffer.set_item(PySlice::new(py, 0, end, 1), PyBytes::new(py, &out))?;
        Ok(out.len())
    }

    /// Moves to `offset` from the start (`whence` 0), the current position (1) or the end (2);
    /// returns the new position.
    #[pyo3(signature = (offset, whence = 0))]
    fn seek(&self, py: Python<'_>, offset: i64, whence: i32) -> PyResult<u64> {
        let to = match whence {
            0 => SeekFrom::Start(
                u64::try_from(offset).map_err(|_| PyValueError::new_err("negative seek position"))?,
            ),
            1 => SeekFrom::Current(offset),
            2 => SeekFrom::End(offset),
            _ => return Err(PyValueError::new_err("whence must be 0, 1 or 2")),
        };
        self.with(py, move |r| r.seek(to))
    }

    /// The current position.
    fn tell(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |r| r.stream_position())
    }

    /// Checks the end of the message (the last chunk and the final tag, and the packets after
    /// the data) and returns the plaintext's length. Raises if the file is truncated or
    /// altered there.
    fn finish(&self, py: Python<'_>) -> PyResult<u64> {
        let reader =
            self.lock()?.take().ok_or_else(|| PyValueError::new_err("I/O operation on closed file"))?;
        let summary = py.detach(|| reader.finish()).map_err(|e| to_py(py, e))?;
        Ok(summary.len)
    }

    /// Closes the file (without checking the end; see `finish`).
    fn close(&self) -> PyResult<()> {
        let _ = self.lock()?.take();
        Ok(())
    }

    /// Whether the file is closed.
    #[getter]
    fn closed(&self) -> PyResult<bool> {
        Ok(self.lock()?.is_none())
    }

    fn readable(&self) -> bool {
        true
    }

    fn seekable(&self) -> bool {
        true
    }

    fn writable(&self) -> bool {
        false
    }

    fn isatty(&self) -> bool {
        false
    }

    fn flush(&self) {}

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }
}

/// Adds the class to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EncryptedFile>()
}
