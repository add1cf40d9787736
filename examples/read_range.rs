//! Decrypts one byte range of a large encrypted file without decrypting what comes before it.
//!
//! ```sh
//! cargo run --release --example read_range -- big.pgp alice.key 1073741824 1048576 > range.bin
//! # or: COUNT random reads of LEN octets each, with their rate
//! cargo run --release --example read_range -- big.pgp alice.key --random 1000 4096
//! ```
//!
//! The message must be binary (not armored). Only the chunks the range touches are decrypted,
//! each authenticated before any of it is written; the final tag is checked at the end, so a
//! truncated file fails even when the range itself was intact. Messages written with their
//! length known in advance (`Encryptor::plaintext_len`, or `sixsop encrypt < FILE`) seek in
//! O(1) chunks.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::time::Instant;

use sixpgp::{Decryptor, Tsk};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: read_range INPUT KEY OFFSET LEN | read_range INPUT KEY --random COUNT LEN";
    let [input, key_path, rest @ ..] = args.as_slice() else { return Err(usage.into()) };
    let key = Tsk::from_reader(BufReader::new(File::open(key_path)?))?;
    let mut reader = Decryptor::new([&key]).seekable_reader(File::open(input)?)?;

    match rest {
        [flag, count, len] if flag == "--random" => {
            let (count, len): (u64, usize) = (count.parse()?, len.parse()?);
            let total = reader.len()?;
            let span = total.saturating_sub(len as u64).max(1);
            let mut buf = vec![0u8; len];
            // A small generator of offsets (xorshift): no dependency for an example.
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let start = Instant::now();
            for _ in 0..count {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let _ = reader.seek(SeekFrom::Start(state % span))?;
                reader.read_exact(&mut buf)?;
            }
            let secs = start.elapsed().as_secs_f64();
            eprintln!("{count} reads of {len} octets in {secs:.3} s: {:.0} reads/s", count as f64 / secs);
        }
        [offset, len] => {
            let _ = reader.seek(SeekFrom::Start(offset.parse()?))?;
            let mut range = reader.by_ref().take(len.parse()?);
            let _ = io::copy(&mut range, &mut io::stdout().lock())?;
            io::stdout().flush()?;
        }
        _ => return Err(usage.into()),
    }
    // The last chunk and the final tag: the whole message has the length it claims.
    let summary = reader.finish()?;
    eprintln!(
        "{} octets, {}-{}, signatures not checked: {}",
        summary.len, summary.sym, summary.aead, summary.unchecked_signatures
    );
    Ok(())
}
