//! `sixsop inline-verify` and `sixsop inline-detach`: One-Pass Signed and cleartext-signed
//! messages.

use std::io::{self, BufReader, Read, Write};
use std::time::SystemTime;

use sixpgp::{CleartextMessage, Error, Verification, is_cleartext_signed};
use sop::ops::{InlineDetach, InlineVerify, Ready};

use crate::cmd::verify::VerifyOptions;
use crate::errors::to_sop;
use crate::io::ARMOR_BUF_LEN;
use crate::{Certs, Sigs, SixSop};

/// The input, with enough of its start buffered to tell a cleartext-signed message apart.
type Input<'d> = BufReader<io::Chain<io::Cursor<Vec<u8>>, &'d mut (dyn Read + Send + Sync)>>;

fn open<'d>(data: &'d mut (dyn Read + Send + Sync)) -> sop::Result<(bool, Input<'d>)> {
    let mut head = Vec::new();
    let _ = (&mut *data).take(64).read_to_end(&mut head)?;
    let cleartext = is_cleartext_signed(&head);
    Ok((cleartext, BufReader::with_capacity(ARMOR_BUF_LEN, io::Cursor::new(head).chain(data))))
}

/// Verifies (with `options`) or just splits the message in `data`: writes the data to `sink`,
/// returns the verifications and the signature packets.
fn process(
    options: &VerifyOptions,
    data: &mut (dyn Read + Send + Sync),
    sink: &mut (dyn Write + Send + Sync),
) -> sop::Result<(Vec<Verification>, Vec<u8>)> {
    let (cleartext, mut input) = open(data)?;
    if cleartext {
        let msg = CleartextMessage::from_reader(&mut input).map_err(to_sop)?;
        let results = options.verifier().verify_cleartext(&msg).map_err(to_sop)?;
        sink.write_all(msg.text())?;
        return Ok((results, msg.signatures().to_vec()));
    }
    let mut r = options.verifier().inline_reader(input).map_err(to_sop)?;
    let _ = io::copy(&mut r, sink).map_err(|e| to_sop(Error::from_io(e)))?;
    let signatures = r.signature_packets().to_vec();
    let results = r.finish().map_err(to_sop)?;
    Ok((results, signatures))
}

/// Collects certificates and the time window, then verifies.
#[derive(Debug, Default)]
pub(crate) struct InlineVerifyCmd {
    options: VerifyOptions,
}

struct InlineVerifyReady<'d> {
    options: VerifyOptions,
    data: &'d mut (dyn Read + Send + Sync),
}

impl<'s> InlineVerify<'s, SixSop, Certs<'s>> for InlineVerifyCmd {
    fn not_before(mut self: Box<Self>, t: SystemTime) -> Box<dyn InlineVerify<'s, SixSop, Certs<'s>> + 's> {
        self.options.not_before(t);
        self
    }

    fn not_after(mut self: Box<Self>, t: SystemTime) -> Box<dyn InlineVerify<'s, SixSop, Certs<'s>> + 's> {
        self.options.not_after(t);
        self
    }

    fn certs(
        mut self: Box<Self>,
        certs: &Certs<'s>,
    ) -> sop::Result<Box<dyn InlineVerify<'s, SixSop, Certs<'s>> + 's>> {
        self.options.add(certs);
        Ok(self)
    }

    fn message<'d>(
        self: Box<Self>,
        data: &'d mut (dyn Read + Send + Sync),
    ) -> sop::Result<Box<dyn Ready<Vec<sop::ops::Verification>> + 'd>>
    where
        's: 'd,
    {
        Ok(Box::new(InlineVerifyReady { options: self.options, data }))
    }
}

impl Ready<Vec<sop::ops::Verification>> for InlineVerifyReady<'_> {
    fn to_writer(
        self: Box<Self>,
        sink: &mut (dyn Write + Send + Sync),
    ) -> sop::Result<Vec<sop::ops::Verification>> {
        let (results, _) = process(&self.options, self.data, sink)?;
        self.options.to_sop(&results)
    }
}

/// Splits an inline-signed message into data and signatures.
#[derive(Debug)]
pub(crate) struct InlineDetachCmd<'s> {
    sop: &'s SixSop,
}

impl<'s> InlineDetachCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop }
    }
}

struct InlineDetachReady<'s, 'd> {
    sop: &'s SixSop,
    data: &'d mut (dyn Read + Send + Sync),
}

impl<'s> InlineDetach<'s, Sigs<'s>> for InlineDetachCmd<'s> {
    fn message<'d>(
        self: Box<Self>,
        data: &'d mut (dyn Read + Send + Sync),
    ) -> sop::Result<Box<dyn Ready<Sigs<'s>> + 'd>>
    where
        's: 'd,
    {
        Ok(Box::new(InlineDetachReady { sop: self.sop, data }))
    }
}

impl<'s> Ready<Sigs<'s>> for InlineDetachReady<'s, '_> {
    fn to_writer(self: Box<Self>, sink: &mut (dyn Write + Send + Sync)) -> sop::Result<Sigs<'s>> {
        let (_, signatures) = process(&VerifyOptions::default(), self.data, sink)?;
        if signatures.is_empty() {
            eprintln!("sixsop: the message has no signatures");
            return Err(sop::errors::Error::BadData);
        }
        Ok(Sigs::new(self.sop, signatures))
    }
}
