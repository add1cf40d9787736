//! Encrypts a file to one or more certificates, streaming (memory stays small whatever the
//! file size).
//!
//! ```sh
//! cargo run --example encrypt_file -- plain.txt plain.txt.pgp alice.cert [bob.cert ...]
//! ```

use std::fs::File;
use std::io::{BufReader, BufWriter};

use sixpgp::{Cert, Encryptor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, cert_paths @ ..] = args.as_slice() else {
        return Err("usage: encrypt_file INPUT OUTPUT CERT...".into());
    };
    if cert_paths.is_empty() {
        return Err("usage: encrypt_file INPUT OUTPUT CERT...".into());
    }
    // Each file may hold several certificates, armored or binary.
    let mut certs = Vec::new();
    for path in cert_paths {
        certs.extend(Cert::read_all(BufReader::new(File::open(path)?))?);
    }

    // The writer encrypts chunk by chunk as data arrives (on the other cores, for a large file);
    // `copy_from` reads the file straight into the chunk buffers, which are wiped when done
    // with (`io::copy` would copy once more, and leave the last plaintext in its stack buffer). `finish` writes the final authentication tag and closes
    // every frame: without it the output would not decrypt. The writer hands the sink whole
    // packet parts, so a small `BufWriter` is enough.
    let sink = BufWriter::with_capacity(16 * 1024, File::create(output)?);
    let mut writer = Encryptor::new(&certs).writer(sink)?;
    let _bytes = writer.copy_from(&mut File::open(input)?)?;
    let _file = writer.finish()?;
    Ok(())
}
