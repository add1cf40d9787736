//! The KEYS, CERTS and SIGNATURES objects SOP passes between subcommands.

use std::fmt;
use std::io::{self, BufReader, Write};

use sixpgp::{ArmorKind, ArmorWriter, Cert, Tsk};
use sop::plumbing::SopRef;

use crate::SixSop;
use crate::errors::to_sop;

/// One or more transferable secret keys: the KEYS of the SOP interface.
///
/// Made by [`sop::Load`] from OpenPGP bytes (armored or binary) or by an operation, written out
/// by [`sop::Save`]. `Debug` shows each key's fingerprint and whether it is locked, never its
/// secret or protected material.
pub struct Keys<'s> {
    sop: &'s SixSop,
    pub(crate) keys: Vec<Tsk>,
    source_name: Option<String>,
}

/// One or more certificates: the CERTS of the SOP interface.
///
/// Made by [`sop::Load`] from OpenPGP bytes (armored or binary) or by an operation, written out
/// by [`sop::Save`].
#[derive(Debug)]
pub struct Certs<'s> {
    sop: &'s SixSop,
    pub(crate) certs: Vec<Cert>,
    source_name: Option<String>,
}

/// One or more signatures, kept as binary packets: the SIGNATURES of the SOP interface.
///
/// Made by [`sop::Load`] from OpenPGP bytes (armored or binary) or by an operation, written out
/// by [`sop::Save`].
#[derive(Debug)]
pub struct Sigs<'s> {
    sop: &'s SixSop,
    pub(crate) bytes: Vec<u8>,
    source_name: Option<String>,
}

impl fmt::Debug for Keys<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// One key as `Debug` shows it.
        struct Shown<'a>(&'a Tsk);
        impl fmt::Debug for Shown<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let state = if self.0.is_locked() { "locked" } else { "unlocked" };
                write!(f, "{} ({state})", self.0.fingerprint())
            }
        }
        f.debug_struct("Keys")
            .field("keys", &self.keys.iter().map(Shown).collect::<Vec<_>>())
            .field("source_name", &self.source_name)
            .finish_non_exhaustive()
    }
}

impl<'s> Keys<'s> {
    pub(crate) fn new(sop: &'s SixSop, keys: Vec<Tsk>) -> Self {
        Self { sop, keys, source_name: None }
    }
}

impl<'s> Sigs<'s> {
    pub(crate) fn new(sop: &'s SixSop, bytes: Vec<u8>) -> Self {
        Self { sop, bytes, source_name: None }
    }
}

impl<'s> Certs<'s> {
    pub(crate) fn new(sop: &'s SixSop, certs: Vec<Cert>) -> Self {
        Self { sop, certs, source_name: None }
    }
}

/// Writes `parts` one after another, armored as `kind` (one block) if asked.
pub(crate) fn write_maybe_armored(
    sink: &mut (dyn Write + Send + Sync),
    armored: bool,
    kind: ArmorKind,
    parts: impl IntoIterator<Item = impl AsRef<[u8]>>,
) -> sop::Result<()> {
    if armored {
        let mut w = ArmorWriter::new(sink, kind).map_err(to_sop)?;
        for part in parts {
            w.write_all(part.as_ref())?;
        }
        let _ = w.finish().map_err(to_sop)?;
    } else {
        for part in parts {
            sink.write_all(part.as_ref())?;
        }
    }
    Ok(())
}

/// Reads everything from `source` into memory, for inputs that are small by nature.
fn read_all(source: &mut (dyn io::Read + Send + Sync)) -> sop::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let _ = source.read_to_end(&mut buf)?;
    Ok(buf)
}

impl<'s> sop::Load<'s, SixSop> for Keys<'s> {
    fn from_reader(
        sop: &'s SixSop,
        source: &mut (dyn io::Read + Send + Sync),
        source_name: Option<String>,
    ) -> sop::Result<Self> {
        let keys = Tsk::read_all(BufReader::new(source)).map_err(to_sop)?;
        if keys.is_empty() {
            eprintln!("sixsop: no secret key found in the input");
            return Err(sop::errors::Error::BadData);
        }
        Ok(Self { sop, keys, source_name })
    }

    fn source_name(&self) -> Option<&str> {
        self.source_name.as_deref()
    }
}

impl sop::Save for Keys<'_> {
    fn to_writer(&self, armored: bool, sink: &mut (dyn Write + Send + Sync)) -> sop::Result<()> {
        // One key at a time, each in a buffer sized once and wiped as soon as it is written.
        write_maybe_armored(sink, armored, ArmorKind::PrivateKey, self.keys.iter().map(Tsk::to_vec))
    }
}

impl<'s> SopRef<'s, SixSop> for Keys<'s> {
    fn sop(&self) -> &'s SixSop {
        self.sop
    }
}

impl<'s> sop::Load<'s, SixSop> for Certs<'s> {
    fn from_reader(
        sop: &'s SixSop,
        source: &mut (dyn io::Read + Send + Sync),
        source_name: Option<String>,
    ) -> sop::Result<Self> {
        let certs = Cert::read_all(BufReader::new(source)).map_err(to_sop)?;
        if certs.is_empty() {
            eprintln!("sixsop: no certificate found in the input");
            return Err(sop::errors::Error::BadData);
        }
        Ok(Self { sop, certs, source_name })
    }

    fn source_name(&self) -> Option<&str> {
        self.source_name.as_deref()
    }
}

impl sop::Save for Certs<'_> {
    fn to_writer(&self, armored: bool, sink: &mut (dyn Write + Send + Sync)) -> sop::Result<()> {
        write_maybe_armored(sink, armored, ArmorKind::PublicKey, self.certs.iter().map(Cert::to_vec))
    }
}

impl<'s> SopRef<'s, SixSop> for Certs<'s> {
    fn sop(&self) -> &'s SixSop {
        self.sop
    }
}

impl<'s> sop::Load<'s, SixSop> for Sigs<'s> {
    fn from_reader(
        sop: &'s SixSop,
        source: &mut (dyn io::Read + Send + Sync),
        source_name: Option<String>,
    ) -> sop::Result<Self> {
        let raw = read_all(source)?;
        let mut bytes = Vec::new();
        let _ = io::copy(&mut sixpgp::ArmorReader::new(&raw[..]), &mut bytes)
            .map_err(|e| to_sop(sixpgp::Error::from_io(e)))?;
        Ok(Self { sop, bytes, source_name })
    }

    fn source_name(&self) -> Option<&str> {
        self.source_name.as_deref()
    }
}

impl sop::Save for Sigs<'_> {
    fn to_writer(&self, armored: bool, sink: &mut (dyn Write + Send + Sync)) -> sop::Result<()> {
        write_maybe_armored(sink, armored, ArmorKind::Signature, [&self.bytes])
    }
}

impl<'s> SopRef<'s, SixSop> for Sigs<'s> {
    fn sop(&self) -> &'s SixSop {
        self.sop
    }
}
