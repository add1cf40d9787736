//! Base64 for armor ([RFC 9580 §6](https://www.rfc-editor.org/rfc/rfc9580#section-6)): the
//! line encoder of [`ArmorWriter`](super::ArmorWriter) and the decoders of
//! [`ArmorReader`](super::ArmorReader), SIMD where the CPU has it (`base64-simd`: AVX2, SSSE3,
//! NEON). Both sides copy the usual line lengths as fixed-size arrays. The small helpers are
//! `#[inline]`: the reader's scanner calls them once per line, from another module.

use crate::crypto::secret::{SecretVec, WipedArray};

/// Input octets per armored line: 48 octets encode to 64 characters.
pub(super) const LINE_INPUT_LEN: usize = 48;
/// Base64 characters per armored line (RFC 9580 §6.3: at most 76; we use 64 like most
/// implementations).
pub(super) const LINE_LEN: usize = 64;
/// Lines encoded per call to the base64 encoder (8 KiB of output on the stack).
pub(super) const BATCH_LINES: usize = 128;
/// Base64 characters gathered (without line breaks) per call to the decoder on the threaded
/// path.
const STAGE_LEN: usize = 8 * 1024;
/// The decoder of the threaded path: refuses padding, so that it accepts exactly the plain
/// base64 characters (see [`decode_plain_lines`]).
const PLAIN: base64_simd::Base64 = base64_simd::STANDARD_NO_PAD;

/// Writes the base64 of `input` (padded) to the start of `dst` and returns its length, or 0
/// if `dst` is too short (the callers size it for their longest input). SIMD where the CPU
/// has it (`base64-simd`: AVX2, SSSE3, NEON).
#[inline]
pub(super) fn encode_into(input: &[u8], dst: &mut [u8]) -> usize {
    let engine = &base64_simd::STANDARD;
    // `encoded_length` panics above usize::MAX / 2, `encode` on a short `dst`: both are
    // excluded here (`dst` is shorter than the base64 of half the address space).
    let Some(dst) =
        (input.len() <= dst.len()).then(|| engine.encoded_length(input.len())).and_then(|n| dst.get_mut(..n))
    else {
        return 0;
    };
    engine.encode(input, base64_simd::Out::from_slice(dst)).len()
}

/// Room for the armored text of `input_len` octets: a whole line and its LF for each line
/// begun.
#[inline]
pub(super) const fn encoded_lines_len(input_len: usize) -> usize {
    input_len.div_ceil(LINE_INPUT_LEN).saturating_mul(LINE_LEN + 1)
}

/// Appends the base64 of `input` to `out` in lines of [`LINE_LEN`] characters, each ending in
/// LF; the last line is shorter (and padded) if `input` is not whole lines.
pub(super) fn encode_lines(input: &[u8], out: &mut SecretVec) {
    let start = out.len();
    let dst = out.extend_zeroed(encoded_lines_len(input.len()));
    let n = encode_lines_into(input, dst);
    out.truncate(start.saturating_add(n));
}

/// Writes the lines of `input` (as [`encode_lines`]) to the start of `dst` and returns their
/// length; as many whole lines as fit if `dst` is shorter than [`encoded_lines_len`] (the
/// callers size it).
pub(super) fn encode_lines_into(input: &[u8], dst: &mut [u8]) -> usize {
    // Wiped: armor also carries secret keys.
    let mut encoded = WipedArray::<{ BATCH_LINES * LINE_LEN }>::new();
    let mut written = 0usize;
    for batch in input.chunks(BATCH_LINES * LINE_INPUT_LEN) {
        // `encoded` holds the base64 of a whole batch.
        let n = encode_into(batch, &mut encoded);
        let (lines, last) = encoded.get(..n).unwrap_or_default().as_chunks::<LINE_LEN>();
        let (slots, _) = dst.get_mut(written..).unwrap_or_default().as_chunks_mut::<{ LINE_LEN + 1 }>();
        // Whole lines as fixed-size copies: a few vector moves each, no call to `memcpy`.
        for (slot, line) in slots.iter_mut().zip(lines) {
            if let Some((chars, lf)) = slot.split_first_chunk_mut::<LINE_LEN>() {
                *chars = *line;
                lf.fill(b'\n');
            }
        }
        if lines.len() > slots.len() {
            return written.saturating_add(slots.len().saturating_mul(LINE_LEN + 1));
        }
        written = written.saturating_add(lines.len().saturating_mul(LINE_LEN + 1));
        if !last.is_empty()
            && let Some(slot) = dst.get_mut(written..written.saturating_add(last.len()).saturating_add(1))
            && let Some((lf, chars)) = slot.split_last_mut()
        {
            chars.copy_from_slice(last);
            *lf = b'\n';
            written = written.saturating_add(slot.len());
        }
    }
    written
}

/// Decodes `src` into the start of `dst` with `engine` (SIMD where the CPU has it:
/// `base64-simd`) and returns the length, or `None` for invalid base64 (a character outside
/// the alphabet, misplaced or, for [`PLAIN`], any padding, nonzero trailing bits, a length of
/// 4n+1) or a `dst` too short for it.
#[inline]
pub(super) fn decode_into(engine: &base64_simd::Base64, src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let len = engine.decoded_length(src).ok()?;
    let dst = dst.get_mut(..len)?;
    engine.decode(src, base64_simd::Out::from_slice(dst)).ok().map(|out| out.len())
}

/// Whether every octet of `s` is a base64 character other than the padding `=`, with no
/// early exit, so that the compiler can check many octets per instruction.
#[inline]
pub(super) fn plain_base64(s: &[u8]) -> bool {
    let mut bad = 0u8;
    for &b in s {
        let ok = (b.wrapping_sub(b'A') < 26)
            | (b.wrapping_sub(b'a') < 26)
            | (b.wrapping_sub(b'0') < 10)
            | (b == b'+')
            | (b == b'/');
        bad |= u8::from(!ok);
    }
    bad == 0
}

/// A character of the base64 alphabet, or the padding `=`.
#[inline]
pub(super) fn is_base64(b: u8) -> bool {
    // A table: this runs once per input octet.
    #[allow(
        clippy::indexing_slicing,
        reason = "evaluated at compile time, with an index below 256 into a 256-entry table"
    )]
    const TABLE: [bool; 256] = {
        let mut table = [false; 256];
        let mut i = 0_u8;
        loop {
            table[i as usize] = matches!(i, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' | b'=');
            if i == u8::MAX {
                break table;
            }
            i += 1;
        }
    };
    TABLE.get(usize::from(b)).copied().unwrap_or(false)
}

/// Decodes the plain lines at the start of `text` into `out` (at least 3/4 as long as `text`):
/// lines of base64 characters without padding, a multiple of 4 long, each ending in LF or
/// CRLF. Returns the octets of `text` decoded (whole lines) and the octets written.
///
/// The lines are gathered a stage at a time, without their line breaks, and decoded with
/// [`PLAIN`], which checks the characters and refuses padding: a stage it refuses, and
/// everything after it, is left to the scanner, which decodes it (the last lines of the body
/// have the padding) or reports what is wrong. What this decodes is therefore exactly what the
/// scanner would have made of the same lines.
pub(super) fn decode_plain_lines(text: &[u8], out: &mut [u8]) -> (usize, usize) {
    let mut stage = WipedArray::<STAGE_LEN>::new();
    let (mut staged, mut used, mut written) = (0usize, 0usize, 0usize);
    // Where the staged characters start in `text`.
    let mut staged_from = 0usize;
    let mut decode = |chars: &[u8], written: &mut usize| -> bool {
        let dst = out.get_mut(*written..).unwrap_or_default();
        decode_into(&PLAIN, chars, dst).map(|n| *written = written.saturating_add(n)).is_some()
    };
    let mut rest = text;
    loop {
        // Runs of 64-character lines ending in LF, the usual armor, while the stage has room:
        // one check and one fixed-size copy per line (the decoder checks the characters).
        while let Some((line, after)) = rest.split_first_chunk::<65>()
            && let Some((&b'\n', chars)) = line.split_last()
            && let Some(dst) = stage.get_mut(staged..staged.saturating_add(64))
        {
            copy_line(dst, chars);
            staged = staged.saturating_add(64);
            used = used.saturating_add(65);
            rest = after;
        }
        let Some((line, after)) = line_end(rest, rest.len()).and_then(|nl| rest.split_at_checked(nl)) else {
            break;
        };
        let nl = line.len();
        let body = line.strip_suffix(b"\r").unwrap_or(line);
        if body.is_empty() || body.len() % 4 != 0 {
            break;
        }
        if body.len() > STAGE_LEN.saturating_sub(staged) {
            if !decode(stage.get(..staged).unwrap_or_default(), &mut written) {
                return (staged_from, written);
            }
            staged = 0;
            staged_from = used;
        }
        if body.len() > STAGE_LEN {
            // A line longer than the stage (which is empty now): decoded on its own.
            if !decode(body, &mut written) {
                return (used, written);
            }
            staged_from = used.saturating_add(nl).saturating_add(1);
        } else if let Some(dst) = stage.get_mut(staged..staged.saturating_add(body.len())) {
            copy_line(dst, body);
            staged = staged.saturating_add(body.len());
        }
        used = used.saturating_add(nl).saturating_add(1);
        rest = after.get(1..).unwrap_or_default();
    }
    if !decode(stage.get(..staged).unwrap_or_default(), &mut written) {
        return (staged_from, written);
    }
    (used, written)
}

/// `dst.copy_from_slice(src)`, with the usual line lengths copied as fixed-size arrays: a few
/// vector moves instead of a call to `memcpy` per line. The caller passes equal lengths.
fn copy_line(dst: &mut [u8], src: &[u8]) {
    debug_assert_eq!(dst.len(), src.len());
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) -> bool {
        match (<&mut [u8; N]>::try_from(dst), <&[u8; N]>::try_from(src)) {
            (Ok(d), Ok(s)) => {
                *d = *s;
                true
            }
            _ => false,
        }
    }
    if !(fixed::<64>(dst, src) || fixed::<76>(dst, src)) && dst.len() == src.len() {
        dst.copy_from_slice(src);
    }
}

/// The end of the first line of `text`, looked for in its first `limit` octets only: the index
/// of an LF with no LF before it, or, when `text` has an LF at 64 or 76 (the usual line
/// lengths), that index, without looking for an earlier LF. The callers check every character
/// of the line they get (an LF is not base64), so a line that holds an earlier LF is refused
/// and goes the one-character-at-a-time way: correct for any input, and linear, but a body
/// of very short lines whose LFs fall at 64 or 76 (4- or 12-character lines, say) is then
/// decoded on the calling thread only.
#[inline]
pub(super) fn line_end(text: &[u8], limit: usize) -> Option<usize> {
    let window = text.get(..limit).unwrap_or(text);
    [64, 76]
        .into_iter()
        .find(|&n| window.get(n) == Some(&b'\n'))
        .or_else(|| window.iter().position(|&b| b == b'\n'))
}

/// The most octets `text_len` characters of base64 decode to: 3 per whole quad.
#[inline]
pub(super) const fn decoded_len(text_len: usize) -> usize {
    (text_len / 4).saturating_mul(3)
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    use super::*;

    /// The line encoder against the `base64` crate, across batch edges, and with destinations
    /// too short for the whole text: whole lines only, never past the end.
    #[test]
    fn line_encoder_matches_the_base64_crate() {
        let data: Vec<u8> = (0..3 * BATCH_LINES * LINE_INPUT_LEN + 100)
            .map(|i| u8::try_from(i * 13 % 256).unwrap())
            .collect();
        let batch = BATCH_LINES * LINE_INPUT_LEN;
        for len in [0, 1, 2, 3, 47, 48, 49, 96, batch - 1, batch, batch + 1, 2 * batch + 47, data.len()] {
            let input = &data[..len];
            let expected: String = STANDARD
                .encode(input)
                .as_bytes()
                .chunks(LINE_LEN)
                .map(|l| format!("{}\n", std::str::from_utf8(l).unwrap()))
                .collect();
            assert!(encoded_lines_len(len) >= expected.len(), "{len}");
            let mut out = SecretVec::default();
            out.extend_from_slice(b"x");
            encode_lines(input, &mut out);
            assert_eq!(&out[1..], expected.as_bytes(), "{len}");
            for short in [0, 1, LINE_LEN, LINE_LEN + 1, expected.len().saturating_sub(1)] {
                let mut dst = vec![0u8; short.min(expected.len())];
                let n = encode_lines_into(input, &mut dst);
                assert!(n == expected.len() || n.is_multiple_of(LINE_LEN + 1), "{len} {short}");
                assert_eq!(&dst[..n], &expected.as_bytes()[..n], "{len} {short}");
            }
        }
    }

    /// `decode_into` accepts and rejects what the `base64` crate's decoders did in its place:
    /// whole quads with padding (`decode_quads`), and any length without (`PLAIN`).
    #[test]
    fn decoding_matches_the_base64_crate() {
        let plain_engine = base64::engine::GeneralPurpose::new(
            &base64::alphabet::STANDARD,
            base64::engine::GeneralPurposeConfig::new()
                .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireNone),
        );
        let cases: [&[u8]; 16] = [
            b"",
            b"QQ==",
            b"QR==",
            b"QUE=",
            b"QUF=",
            b"QUFB",
            b"Q===",
            b"====",
            b"QQ==QUFB",
            b"QUF\n",
            b"QUFBQQ",
            b"QUFBQR",
            b"QUFBQ",
            b"QUFB QUFB",
            b"-_AA",
            b"+/+/",
        ];
        for case in cases {
            let mut out = [0u8; 16];
            if case.len() % 4 == 0 {
                let ours = decode_into(&base64_simd::STANDARD, case, &mut out).map(|n| out[..n].to_vec());
                assert_eq!(ours, STANDARD.decode(case).ok(), "{case:?}");
            }
            let ours = decode_into(&PLAIN, case, &mut out).map(|n| out[..n].to_vec());
            assert_eq!(ours, plain_engine.decode(case).ok(), "{case:?} without padding");
        }
        // A destination too short is an error, not a panic.
        assert_eq!(decode_into(&PLAIN, b"QUFBQUFB", &mut [0u8; 5]), None);
    }
}
