//! `encrypt_stream` and `decrypt_stream`: the library's streaming adapters over Python binary
//! file objects. The GIL is released for the whole operation and taken back only to call the
//! file objects' `read` and `write`, through buffers of [`BUFFER`] octets: memory stays bounded
//! whatever the size of the stream.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::convert;
use crate::errors::to_py;
use crate::message::{check_signed, decryptor_from_args, encryptor, verifications};

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
                    .keep(PyTypeError::new_err("src is non-blocking (read returned None)")));
            }
            if chunk.is_instance_of::<PyString>() {
                return Err(self.raised.keep(PyTypeError::new_err(TEXT_MODE_SOURCE)));
            }
            // Whatever `io` allows `read` to return: bytes, bytearray, memoryview.
            let data = convert::octets(&chunk, "src.read()").map_err(|e| self.raised.keep(e))?;
            let target = buf.get_mut(..data.len()).ok_or_else(|| {
                self.raised.keep(PyTypeError::new_err("src returned more than was asked for"))
            })?;
            target.copy_from_slice(&data);
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

/// The hint for a source opened in text mode.
const TEXT_MODE_SOURCE: &str = "src is a text-mode file: open it in binary mode ('rb')";

/// Where a stream function reads from: a binary file object, or a file it opens itself.
fn source(obj: &Bound<'_, PyAny>, raised: &Raised) -> PyResult<Box<dyn Read + Send>> {
    if let Some(path) = convert::path(obj)? {
        return Ok(Box::new(File::open(path)?));
    }
    file_object(obj, "src", "read", TEXT_MODE_SOURCE)?;
    Ok(Box::new(PyReader { file: obj.clone().unbind(), raised: raised.clone() }))
}

/// Where a stream function writes to.
enum Destination {
    /// A binary file object: written as the stream goes.
    Object(PyWriter),
    /// A path: written to a temporary file beside it, renamed to it only once the whole
    /// operation has succeeded (for decryption: once the message has authenticated).
    Path(PathBuf),
}

impl Destination {
    fn new(obj: &Bound<'_, PyAny>, raised: &Raised) -> PyResult<Self> {
        if let Some(path) = convert::path(obj)? {
            return Ok(Self::Path(path));
        }
        file_object(obj, "dst", "write", "dst is a text-mode file: open it in binary mode ('wb')")?;
        Ok(Self::Object(PyWriter { file: obj.clone().unbind(), raised: raised.clone() }))
    }

    /// Runs `job` on a buffered writer to the destination, and then, for a path, puts the file
    /// in place if `keep` accepts the job's result. A temporary file is removed when anything
    /// fails or `keep` refuses.
    fn write<T>(
        self,
        job: impl FnOnce(&mut dyn Write) -> sixpgp::Result<T>,
        keep: impl FnOnce(&T) -> bool,
    ) -> sixpgp::Result<T> {
        match self {
            Self::Object(writer) => {
                let mut sink = BufWriter::with_capacity(BUFFER, writer);
                let out = job(&mut sink)?;
                sink.flush()?;
                Ok(out)
            }
            Self::Path(path) => {
                let dir = match path.parent() {
                    Some(dir) if !dir.as_os_str().is_empty() => dir,
                    _ => Path::new("."),
                };
                // Created readable by the owner only, as plaintext should be. Written unbuffered:
                // the library writes whole chunks, and a buffer would be one more unwiped copy
                // of the plaintext.
                let mut temp = tempfile::Builder::new().prefix(".sixpgp-").suffix(".tmp").tempfile_in(dir)?;
                let out = job(&mut temp)?;
                if !keep(&out) {
                    return Ok(out);
                }
                temp.as_file().sync_all()?;
                let _ = temp.persist(&path).map_err(|e| e.error)?;
                Ok(out)
            }
        }
    }
}

/// Checks that `obj` is a binary file object with the method `method`, with a hint for the
/// usual mistakes: bytes where a file goes, a text-mode file.
fn file_object(obj: &Bound<'_, PyAny>, param: &str, method: &str, text_mode: &str) -> PyResult<()> {
    let py = obj.py();
    if convert::is_data(obj) {
        return Err(convert::type_error(
            param,
            "a binary file object or a path (for data in memory: sixpgp.encrypt, sixpgp.decrypt, or io.BytesIO)",
            obj,
        ));
    }
    if obj.is_instance(&py.import("io")?.getattr("TextIOBase")?)? {
        return Err(PyTypeError::new_err(text_mode.to_owned()));
    }
    if !obj.hasattr(method)? {
        return Err(convert::type_error(param, "a binary file object or a path", obj));
    }
    Ok(())
}

/// Encrypts everything read from `src` to `dst`, to `recipients` and/or `passwords`, signed by
/// `signer` if given. Each of `src` and `dst` is a binary file object or a path (`str` or
/// `os.PathLike`); a `dst` path appears only once the message is complete. Memory stays bounded
/// whatever the size. Returns the number of plaintext octets read.
#[pyfunction]
#[pyo3(signature = (src, dst, recipients = None, *, passwords = None, signer = None, armor = true))]
fn encrypt_stream(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    recipients: Option<&Bound<'_, PyAny>>,
    passwords: Option<&Bound<'_, PyAny>>,
    signer: Option<&Bound<'_, PyAny>>,
    armor: bool,
) -> PyResult<u64> {
    let none = py.None().into_bound(py);
    let encryptor = encryptor(recipients.unwrap_or(&none), passwords.unwrap_or(&none), signer, armor)?;
    let raised = Raised::default();
    // No buffer in front of the source: `copy_from` asks it for whole chunk buffers, so each
    // `read` lands in the buffer that is encrypted.
    let mut source = source(src, &raised)?;
    let destination = Destination::new(dst, &raised)?;
    py.detach(|| {
        destination.write(
            |sink| {
                let mut writer = encryptor.writer(sink)?;
                let total = writer.copy_from(&mut source)?;
                let _ = writer.finish()?;
                Ok(total)
            },
            |_| true,
        )
    })
    .map_err(|e| raised.to_py(py, e))
}

/// Decrypts the message read from `src` (armored or binary) to `dst`, with `keys` and/or
/// `passwords`, checking its signatures against `verify` (`require_signature=True`: raises
/// `NoGoodSignature` unless one is good). Each of `src` and `dst` is a binary file object or a
/// path (`str` or `os.PathLike`). Memory stays bounded whatever the size. Returns the signature
/// verdicts (a list of `Verification`).
///
/// To a path, the plaintext goes to a temporary file beside it that is renamed to it only once
/// the whole message has authenticated (and the signature requirement is met): on any error the
/// path does not appear. To a file object, plaintext is written as each chunk authenticates; the
/// message as a whole is authentic only if this returns. If it raises, discard what was written.
#[pyfunction]
#[pyo3(signature = (src, dst, keys = None, *, passwords = None, verify = None, require_signature = false, untrusted = false))]
#[allow(clippy::too_many_arguments, reason = "the Python signature's keyword arguments")]
fn decrypt_stream<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    dst: &Bound<'py, PyAny>,
    keys: Option<&Bound<'py, PyAny>>,
    passwords: Option<&Bound<'py, PyAny>>,
    verify: Option<&Bound<'py, PyAny>>,
    require_signature: bool,
    untrusted: bool,
) -> PyResult<Bound<'py, PyList>> {
    let decryptor = decryptor_from_args(py, keys, passwords, verify, require_signature, untrusted)?;
    let raised = Raised::default();
    let source = BufReader::with_capacity(BUFFER, source(src, &raised)?);
    let destination = Destination::new(dst, &raised)?;
    let summary = py
        .detach(|| {
            destination.write(
                |sink| {
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
                    reader.finish()
                },
                |summary| {
                    // Without the required signature a path stays absent (raised below).
                    !require_signature || summary.verifications.iter().any(sixpgp::Verification::is_good)
                },
            )
        })
        .map_err(|e| raised.to_py(py, e))?;
    check_signed(py, require_signature, &summary.verifications)?;
    verifications(py, &summary.verifications)
}

/// Adds the functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encrypt_stream, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_stream, m)?)?;
    Ok(())
}
