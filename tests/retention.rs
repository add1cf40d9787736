//! Memory held before the encrypted data: session-key packets this crate cannot use are not
//! kept. (Otherwise 1000 PKESKs of an unknown algorithm, each just under the 1 MiB packet
//! limit, would hold about 1 GiB.) A test binary of its own, so that the process's peak memory
//! is this test's alone.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

use std::io::{self, BufReader, Read, Write};

use sixpgp::{Decryptor, Encryptor};

/// Peak resident memory of this process (VmHWM), KiB.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap();
    line.trim().trim_end_matches("kB").trim().parse().unwrap()
}

/// A packet with a five-octet fixed length.
fn packet(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![0xc0 | tag, 0xff];
    out.extend_from_slice(&u32::try_from(body.len()).unwrap().to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// Each of `packets` `count` times, then `tail`, made as they are read (the input is never
/// held whole).
struct Flood {
    parts: Vec<(Vec<u8>, usize)>,
    tail: Vec<u8>,
    pos: usize,
}

impl Read for Flood {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut pos = self.pos;
        for (packet, count) in &self.parts {
            let len = packet.len() * count;
            if pos < len {
                let off = pos % packet.len();
                let n = buf.len().min(packet.len() - off);
                buf[..n].copy_from_slice(&packet[off..off + n]);
                self.pos += n;
                return Ok(n);
            }
            pos -= len;
        }
        let n = buf.len().min(self.tail.len().saturating_sub(pos));
        buf[..n].copy_from_slice(&self.tail[pos..pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn unusable_session_key_packets_are_not_kept() {
    // A v6 PKESK for an anonymous recipient with the unknown algorithm 99, and a v6 SKESK
    // (AES-128, GCM, iterated S2K) whose encrypted key is far longer than any session key:
    // each just under 1 MiB, 200 of each, then a message to the password.
    let mut pkesk = vec![6u8, 0, 99];
    pkesk.resize((1 << 20) - 64, 0xaa);
    let s2k = [3u8, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0x10];
    let mut skesk = vec![6u8, 3 + 11 + 12, 7, 3, 11];
    skesk.extend_from_slice(&s2k);
    skesk.extend_from_slice(&[0u8; 12]);
    skesk.resize((1 << 20) - 64, 0xbb);
    let mut w = Encryptor::default().password("x").writer(Vec::new()).unwrap();
    w.write_all(b"hello").unwrap();
    let tail = w.finish().unwrap();
    let flood = Flood { parts: vec![(packet(1, &pkesk), 200), (packet(3, &skesk), 200)], tail, pos: 0 };

    let before = peak_kib();
    let mut r = Decryptor::default().password("x").reader(BufReader::new(flood)).unwrap();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    assert_eq!(out, b"hello");
    let grown_mib = (peak_kib() - before) / 1024;
    assert!(grown_mib < 32, "peak memory grew by {grown_mib} MiB while reading 400 MiB of packets");
}
