//! `sixsop armor` and `sixsop dearmor`.

use std::io::{self, BufReader, Read};

use sixpgp::{ArmorKind, ArmorReader, ArmorWriter, Error};
use sop::ops::{Armor, ArmorLabel, Dearmor, Ready};

use crate::errors::to_sop;
use crate::io::{ARMOR_BUF_LEN, armor_threads};

/// Armors binary input; armored input passes through unchanged (armor is idempotent).
#[derive(Debug)]
pub(crate) struct ArmorCmd;

/// Removes armor; binary input passes through unchanged.
#[derive(Debug)]
pub(crate) struct DearmorCmd;

struct ArmorReady<'d> {
    data: &'d mut (dyn Read + Send + Sync),
}

struct DearmorReady<'d> {
    data: &'d mut (dyn Read + Send + Sync),
}

/// Guesses the armor label from the first packet's type.
fn kind_of(first: u8) -> ArmorKind {
    let tag = if first & 0x40 != 0 { first & 0x3f } else { (first >> 2) & 0x0f };
    match tag {
        5 | 7 => ArmorKind::PrivateKey,
        6 | 14 => ArmorKind::PublicKey,
        2 => ArmorKind::Signature,
        _ => ArmorKind::Message,
    }
}

impl<'s> Armor<'s> for ArmorCmd {
    fn label(self: Box<Self>, _label: ArmorLabel) -> Box<dyn Armor<'s> + 's> {
        self
    }

    fn data<'d>(self: Box<Self>, data: &'d mut (dyn Read + Send + Sync)) -> sop::Result<Box<dyn Ready + 'd>>
    where
        's: 'd,
    {
        Ok(Box::new(ArmorReady { data }))
    }
}

impl Ready for ArmorReady<'_> {
    fn to_writer(self: Box<Self>, sink: &mut (dyn io::Write + Send + Sync)) -> sop::Result<()> {
        let mut input = BufReader::with_capacity(ARMOR_BUF_LEN, self.data);
        let first = {
            use std::io::BufRead;
            input.fill_buf()?.first().copied()
        };
        match first {
            Some(b) if b & 0x80 != 0 => {
                let mut w = ArmorWriter::new(sink, kind_of(b)).map_err(to_sop)?.threads(armor_threads());
                let _ = io::copy(&mut input, &mut w)?;
                let _ = w.finish().map_err(to_sop)?;
            }
            Some(_) => {
                // Already armored (or not OpenPGP): dearmor as a stream and armor again with
                // the label of the first packet, which also checks that the input is armor.
                let mut r =
                    BufReader::with_capacity(1 << 16, ArmorReader::new(input).threads(armor_threads()));
                let kind = {
                    use std::io::BufRead;
                    r.fill_buf().map_err(|e| to_sop(Error::from_io(e)))?.first().map(|b| kind_of(*b))
                };
                let mut w = ArmorWriter::new(sink, kind.unwrap_or(ArmorKind::Message))
                    .map_err(to_sop)?
                    .threads(armor_threads());
                let _ = io::copy(&mut r, &mut w).map_err(|e| to_sop(Error::from_io(e)))?;
                let _ = w.finish().map_err(to_sop)?;
            }
            None => {
                eprintln!("sixsop: empty input");
                return Err(sop::errors::Error::BadData);
            }
        }
        Ok(())
    }
}

impl<'s> Dearmor<'s> for DearmorCmd {
    fn data<'d>(self: Box<Self>, data: &'d mut (dyn Read + Send + Sync)) -> sop::Result<Box<dyn Ready + 'd>>
    where
        's: 'd,
    {
        Ok(Box::new(DearmorReady { data }))
    }
}

impl Ready for DearmorReady<'_> {
    fn to_writer(self: Box<Self>, sink: &mut (dyn io::Write + Send + Sync)) -> sop::Result<()> {
        let mut r =
            ArmorReader::new(BufReader::with_capacity(ARMOR_BUF_LEN, self.data)).threads(armor_threads());
        let n = io::copy(&mut r, sink).map_err(|e| to_sop(Error::from_io(e)))?;
        if n == 0 {
            eprintln!("sixsop: no OpenPGP data in the input");
            return Err(sop::errors::Error::BadData);
        }
        Ok(())
    }
}
