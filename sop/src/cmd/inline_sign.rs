//! `sixsop inline-sign`: One-Pass Signed messages (binary, text) or cleartext-signed ones.

use std::io::{self, Read};

use sixpgp::{ArmorKind, ArmorWriter, SignatureMode, Signer};
use sop::ops::{InlineSign, InlineSignAs, Ready};

use crate::cmd::sign::{Signers, copy};
use crate::errors::to_sop;
use crate::{Keys, SixSop};

/// Collects keys and options, then signs.
#[derive(Debug)]
pub(crate) struct InlineSignCmd {
    armor: bool,
    mode: InlineSignAs,
    signers: Signers,
}

impl InlineSignCmd {
    pub(crate) fn new() -> Self {
        Self { armor: true, mode: InlineSignAs::Binary, signers: Signers::default() }
    }
}

struct InlineSignReady<'d> {
    cmd: InlineSignCmd,
    data: &'d mut (dyn Read + Send + Sync),
}

impl<'s> InlineSign<'s, SixSop, Keys<'s>> for InlineSignCmd {
    fn no_armor(mut self: Box<Self>) -> Box<dyn InlineSign<'s, SixSop, Keys<'s>> + 's> {
        self.armor = false;
        self
    }

    fn mode(mut self: Box<Self>, mode: InlineSignAs) -> Box<dyn InlineSign<'s, SixSop, Keys<'s>> + 's> {
        self.mode = mode;
        self
    }

    fn keys(
        mut self: Box<Self>,
        keys: &Keys<'s>,
    ) -> sop::Result<Box<dyn InlineSign<'s, SixSop, Keys<'s>> + 's>> {
        self.signers.add(keys)?;
        Ok(self)
    }

    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn InlineSign<'s, SixSop, Keys<'s>> + 's>> {
        self.signers.password(password);
        Ok(self)
    }

    fn data<'d>(self: Box<Self>, data: &'d mut (dyn Read + Send + Sync)) -> sop::Result<Box<dyn Ready + 'd>>
    where
        's: 'd,
    {
        if self.mode == InlineSignAs::ClearSigned && !self.armor {
            eprintln!("sixsop: --as=clearsigned cannot be combined with --no-armor");
            return Err(sop::errors::Error::IncompatibleOptions);
        }
        Ok(Box::new(InlineSignReady { cmd: *self, data }))
    }
}

impl Ready for InlineSignReady<'_> {
    fn to_writer(self: Box<Self>, sink: &mut (dyn io::Write + Send + Sync)) -> sop::Result<()> {
        let keys = self.cmd.signers.unlocked()?;
        let mode = match self.cmd.mode {
            InlineSignAs::Binary => SignatureMode::Binary,
            InlineSignAs::Text | InlineSignAs::ClearSigned => SignatureMode::Text,
        };
        let mut signer = Signer::new().mode(mode);
        for k in &keys {
            signer = signer.key(k);
        }
        let text = mode == SignatureMode::Text;
        match (self.cmd.mode, self.cmd.armor) {
            (InlineSignAs::ClearSigned, _) => {
                let mut w = signer.cleartext_writer(sink).map_err(to_sop)?;
                copy(self.data, &mut w, text)?;
                let _ = w.finish().map_err(to_sop)?;
            }
            (_, true) => {
                // Sign first, so that a key that cannot sign writes nothing.
                let signer = signer;
                let armor = ArmorWriter::new(sink, ArmorKind::Message).map_err(to_sop)?;
                let mut w = signer.inline_writer(armor).map_err(to_sop)?;
                copy(self.data, &mut w, text)?;
                let _ = w.finish().map_err(to_sop)?.finish().map_err(to_sop)?;
            }
            (_, false) => {
                let mut w = signer.inline_writer(sink).map_err(to_sop)?;
                copy(self.data, &mut w, text)?;
                let _ = w.finish().map_err(to_sop)?;
            }
        }
        Ok(())
    }
}
