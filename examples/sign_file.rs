//! Signs a file with a secret key and writes an armored detached signature to stdout.
//!
//! ```sh
//! cargo run --example sign_file -- alice.key document.txt > document.txt.sig
//! ```

use std::fs::File;
use std::io::{self, BufReader, Write};

use sixpgp::{ArmorKind, ArmorWriter, Signer, Tsk};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(key), Some(file)) = (args.next(), args.next()) else {
        return Err("usage: sign_file KEY FILE".into());
    };
    let tsk = Tsk::from_reader(BufReader::new(File::open(key)?))?;
    // The document is streamed through the hashing sink: memory use does not grow with it.
    let mut signer = Signer::new().key(&tsk).detached()?;
    let _ = io::copy(&mut File::open(file)?, &mut signer)?;
    let signatures = signer.finish()?;
    let mut armor = ArmorWriter::new(io::stdout().lock(), ArmorKind::Signature)?;
    armor.write_all(&signatures)?;
    let _ = armor.finish()?;
    Ok(())
}
