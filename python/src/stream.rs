//! `encrypt_stream` and `decrypt_stream`: the library's streaming adapters over Python binary
//! file objects. The GIL is released for the whole operation and taken back only to call the
//! file objects' `read` and `write`, through buffers of [`BUFFER`] octets: memory stays bounded
//! whatever the size of the stream.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::errors::to_py;
use crate::message::{decryptor_from_args, encryptor, verifications};

/// The size of each read from and write to a Python file object.
const BUFFER: usize = 1 << 20;

/// The first exception a Python file object raised, kept to be raised again as it was (the
/// library only sees an I/O error).
#[derive(Clone, Default)]
struct Raised(Arc<Mutex<Option<PyErr>>>);

impl Raised {
    /// Keeps `err` (the first one only) and returns the I/O error that stands for it.
    fn keep(&self, err: PyErr) -> io::Error {
        let message = format!("Python file object: {err}");
        if let Ok(mut slot) = self.0.lock()
            && slot.is_none()
        {
            *slot = Some(err);
        }
        io::Error::other(message)
    }

    /// The exception to raise for `err`: the file object's own if one was kept.
    fn to_py(&self, py: Python<'_>, err: sixpgp::Error) -> PyErr {
        match self.0.lock().ok().and_then(|mut slot| slot.take()) {
            Some(raised) => raised,
            None => to_py(py, err),
        }
    }
}

/// `read` on a Python binary file object.
struct PyReader {
    file: Py<PyAny>,
    raised: Raised,
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let chunk =
                self.file.bind(py).call_method1("read", (buf.len(),)).map_err(|e| self.raised.keep(e))?;
            if chunk.is_none() {
                return Err(self
                    .raised
                    .keep(PyTypeError::new_err("source is non-blocking (read returned None)")));
            }
            let chunk = chunk.cast_into::<PyBytes>().map_err(|e| self.raised.keep(e.into()))?;
            let data = chunk.as_bytes();
            let target = buf.get_mut(..data.len()).ok_or_else(|| {
                self.raised.keep(PyTypeError::new_err("source returned more than was asked for"))
            })?;
            target.copy_from_slice(data);
            Ok(data.len())
        })
    }
}

/// `write` on a Python binary file object.
struct PyWriter {
    file: Py<PyAny>,
    raised: Raised,
}

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let written = self
                .file
                .bind(py)
                .call_method1("write", (PyBytes::new(py, buf),))
                .map_err(|e| self.raised.keep(e))?;
            // Raw files may write less, and say how much; buffered ones write all.
            match written.extract::<Option<usize>>() {
                Ok(Some(n)) if n <= buf.len() => Ok(n),
                Ok(None) => Ok(buf.len()),
                _ => Err(self.raised.keep(PyTypeError::new_err("sink's write returned an invalid count"))),
            }
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Python::attach(|py| {
            let file = self.file.bind(py);
            if file.hasattr("flush").map_err(|e| self.raised.keep(e))? {
                let _ = file.call_method0("flush").map_err(|e| self.raised.keep(e))?;
            }
            Ok(())
        })
    }
}

/// Encrypts everything read from `src` (a binary file object) to `dst` (another), to
/// `recipients` and/or `passwords`, signed by `signer` if given. Memory stays bounded whatever
/// the size. Returns the number of plaintext octets read.
#[pyfunction]
#[pyo3(signature = (src, dst, recipients = None, *, passwords = None, signer = None, armor = true))]
fn encrypt_stream(
    py: Python<'_>,
    src: Py<PyAny>,
    dst: Py<PyAny>,
    recipients: Option<&Bound<'_, PyAny>>,
    passwords: Option<&Bound<'_, PyAny>>,
    signer: Option<&Bound<'_, PyAny>>,
    armor: bool,
) -> PyResult<u64> {
    let none = py.None().into_bound(py);
    let encryptor = encryptor(recipients.unwrap_or(&none), passwords.unwrap_or(&none), signer, armor)?;
    let raised = Raised::default();
    // No buffer in front of the source: `copy_from` asks it for whole chunk buffers, so each
    // `read` of the file object lands in the buffer that is encrypted.
    let mut source = PyReader { file: src, raised: raised.clone() };
    let sink = BufWriter::with_capacity(BUFFER, PyWriter { file: dst, raised: raised.clone() });
    py.detach(|| {
        let mut writer = encryptor.writer(sink)?;
        let total = writer.copy_from(&mut source)?;
        let mut sink = writer.finish()?;
        sink.flush()?;
        Ok(total)
    })
    .map_err(|e| raised.to_py(py, e))
}

/// Decrypts the message read from `src` (a binary file object, armored or binary) to `dst`,
/// with `keys` and/or `passwords`, checking its signatures against `verify`. Memory stays
/// bounded whatever the size. Returns the signature verdicts (a list of `Verification`).
///
/// Plaintext is written as each chunk authenticates; the message as a whole is authentic only
/// if this returns. If it raises, discard what was written.
#[pyfunction]
#[pyo3(signature = (src, dst, keys = None, *, passwords = None, verify = None, untrusted = false))]
#[allow(clippy::too_many_arguments, reason = "the Python signature's keyword arguments")]
fn decrypt_stream<'py>(
    py: Python<'py>,
    src: Py<PyAny>,
    dst: Py<PyAny>,
    keys: Option<&Bound<'py, PyAny>>,
    passwords: Option<&Bound<'py, PyAny>>,
    verify: Option<&Bound<'py, PyAny>>,
    untrusted: bool,
) -> PyResult<Bound<'py, PyList>> {
    let decryptor = decryptor_from_args(py, keys, passwords, verify, untrusted)?;
    let raised = Raised::default();
    let source = BufReader::with_capacity(BUFFER, PyReader { file: src, raised: raised.clone() });
    let mut sink = BufWriter::with_capacity(BUFFER, PyWriter { file: dst, raised: raised.clone() });
    let summary = py
        .detach(|| {
            let mut reader = decryptor.reader(source)?;
            loop {
                let chunk = reader.fill_buf()?;
                if chunk.is_empty() {
                    break;
                }
                let n = chunk.len();
                sink.write_all(chunk)?;
                reader.consume(n);
            }
            sink.flush()?;
            reader.finish()
        })
        .map_err(|e| raised.to_py(py, e))?;
    verifications(py, &summary.verifications)
}

/// Adds the functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encrypt_stream, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_stream, m)?)?;
    Ok(())
}
