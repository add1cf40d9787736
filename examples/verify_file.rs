//! Verifies a detached signature over a file with a certificate; exits non-zero unless a
//! signature is good.
//!
//! ```sh
//! cargo run --example verify_file -- alice.cert document.txt document.txt.sig
//! ```

use std::fs::{self, File};
use std::io::BufReader;

use sixpgp::{Cert, Verifier};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(cert), Some(file), Some(sig)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: verify_file CERT FILE SIGNATURE".into());
    };
    let certs = Cert::read_all(BufReader::new(File::open(cert)?))?;
    let signatures = fs::read(sig)?;
    let results = Verifier::new(&certs).verify_detached(&signatures, File::open(file)?)?;
    for r in &results {
        match (r.is_good(), r.signing_key()) {
            (true, Some(key)) => println!("good signature by {key}"),
            _ => println!("not verified: {:?}", r.status()),
        }
    }
    if results.iter().any(|r| r.is_good()) { Ok(()) } else { Err("no good signature".into()) }
}
