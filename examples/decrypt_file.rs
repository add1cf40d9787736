//! Decrypts a file with a secret key, streaming.
//!
//! ```sh
//! cargo run --example decrypt_file -- plain.txt.pgp plain.txt alice.key
//! ```
//!
//! Plaintext is written as each chunk is authenticated; if the message turns out to be
//! truncated or modified later on, the program fails and the partial output must be discarded.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};

use sixpgp::{Decryptor, Tsk};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, key_path] = args.as_slice() else {
        return Err("usage: decrypt_file INPUT OUTPUT KEY".into());
    };
    let key = Tsk::from_reader(BufReader::new(File::open(key_path)?))?;

    let mut reader = Decryptor::new([&key]).reader(BufReader::new(File::open(input)?))?;
    let mut out = BufWriter::new(File::create(output)?);
    // `Ok(0)`, the end of `io::copy`, comes only after everything has been authenticated.
    let _bytes = io::copy(&mut reader, &mut out)?;
    out.flush()?;
    let summary = reader.finish()?;
    eprintln!("decrypted with {:?}, {:?}-{:?}", summary.decrypted_with, summary.sym, summary.aead);
    Ok(())
}
