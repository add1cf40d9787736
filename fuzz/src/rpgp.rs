//! The rPGP oracle, in its own process (`oracle-rpgp/`, built separately: its ml-kem 0.2
//! cannot share a build with sixpgp's and Sequoia's ml-kem 0.3). The process is started on
//! first use from `$SIXPGP_RPGP_ORACLE`, else `oracle-rpgp/target/release/oracle-rpgp`; if it
//! cannot be started, every call returns `None` and the targets compare with Sequoia only.

use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::{MessageSpec, OP_CERT, OP_DECRYPT, OP_ENCRYPT, Opened, PASSWORD, Unwire, Wire};

struct Oracle {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn oracle() -> &'static Mutex<Option<Oracle>> {
    static ORACLE: OnceLock<Mutex<Option<Oracle>>> = OnceLock::new();
    ORACLE.get_or_init(|| {
        let path = std::env::var_os("SIXPGP_RPGP_ORACLE").map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle-rpgp/target/release/oracle-rpgp"),
            Into::into,
        );
        let started = Command::new(&path).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn();
        let o = match started {
            Ok(mut child) => {
                let stdin = child.stdin.take().expect("piped");
                let stdout = BufReader::new(child.stdout.take().expect("piped"));
                Some(Oracle { _child: child, stdin, stdout })
            }
            Err(e) => {
                eprintln!("rPGP oracle {} not started ({e}): comparing with Sequoia only", path.display());
                None
            }
        };
        Mutex::new(o)
    })
}

/// Sends one request; the answer's body, or `None` without an oracle process.
fn call(op: u8, body: &Wire) -> Option<Vec<u8>> {
    let mut guard = oracle().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let o = guard.as_mut()?;
    let mut req = Wire::default();
    req.u8(op).bytes(&body.0);
    o.stdin.write_all(&req.0).and_then(|()| o.stdin.flush()).expect("rPGP oracle: write");
    let mut len = [0u8; 4];
    o.stdout.read_exact(&mut len).expect("rPGP oracle died (a panic in rPGP: see its stderr)");
    let mut answer = vec![0u8; u32::from_le_bytes(len) as usize];
    o.stdout.read_exact(&mut answer).expect("rPGP oracle: read");
    Some(answer)
}

fn result<T>(answer: &[u8], ok: impl FnOnce(&mut Unwire<'_>) -> T) -> Result<T, String> {
    let mut r = Unwire(answer);
    match r.u8() {
        0 => Ok(ok(&mut r)),
        _ => Err(String::from_utf8_lossy(r.bytes()).into_owned()),
    }
}

/// The primary fingerprint and the sorted subkey fingerprints rPGP reads from `data`.
pub fn cert(data: &[u8]) -> Option<Result<(Vec<u8>, Vec<Vec<u8>>), String>> {
    let mut w = Wire::default();
    w.bytes(data);
    let answer = call(OP_CERT, &w)?;
    Some(result(&answer, |r| {
        let fp = r.bytes().to_vec();
        let subkeys = (0..r.u32()).map(|_| r.bytes().to_vec()).collect();
        (fp, subkeys)
    }))
}

pub fn decrypt_with(message: &[u8], passwords: &[&str], verify: bool) -> Option<Result<Opened, String>> {
    let mut w = Wire::default();
    w.u8(u8::from(verify)).u8(passwords.len() as u8);
    for p in passwords {
        w.bytes(p.as_bytes());
    }
    w.bytes(message);
    let answer = call(OP_DECRYPT, &w)?;
    Some(result(&answer, Opened::decode))
}

pub fn decrypt(message: &[u8], verify: bool) -> Option<Result<Opened, String>> {
    decrypt_with(message, &[PASSWORD], verify)
}

pub fn encrypt(spec: &MessageSpec) -> Option<Result<Vec<u8>, String>> {
    let mut w = Wire::default();
    spec.encode(&mut w);
    let answer = call(OP_ENCRYPT, &w)?;
    Some(result(&answer, |r| r.bytes().to_vec()))
}
