//! `sixsopv`, the verification-only subset: it reports its own name, refuses the other
//! subcommands, and gives the same answer as `sixsop` (exit code and VERIFICATIONS) on every
//! `verify` and `inline-verify` case here.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

mod common;
use std::path::Path;

use common::{data, ok, run_bin, tempdir};

const SIXSOP: &str = env!("CARGO_BIN_EXE_sixsop");
const SIXSOPV: &str = env!("CARGO_BIN_EXE_sixsopv");

/// Runs `args` with both binaries and checks that they agree; returns the exit code.
fn same(args: &[&str], stdin: &[u8], dir: &Path) -> i32 {
    let full = run_bin(SIXSOP, args, stdin, dir);
    let subset = run_bin(SIXSOPV, args, stdin, dir);
    assert_eq!(
        full.status.code(),
        subset.status.code(),
        "{args:?}: {}",
        String::from_utf8_lossy(&subset.stderr)
    );
    assert_eq!(full.stdout, subset.stdout, "{args:?}");
    full.status.code().unwrap()
}

#[test]
fn version_names_sixsopv() {
    let d = tempdir("sopv-version");
    let out = run_bin(SIXSOPV, &["version"], b"", &d);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("sixsopv {}\n", env!("CARGO_PKG_VERSION")));
    let out = run_bin(SIXSOPV, &["version", "--extended"], b"", &d);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("sixsopv "), "{text}");
    assert!(text.contains(&format!("sixpgp {}", sixpgp::VERSION)), "{text}");
    assert!(text.contains(&sixpgp::backend().to_string()), "{text}");
    let out = run_bin(SIXSOPV, &["version", "--backend"], b"", &d);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("sixpgp {}\n", sixpgp::VERSION));
}

#[test]
fn other_subcommands_are_refused() {
    let d = tempdir("sopv-refused");
    // UNSUPPORTED_SUBCOMMAND (69), as `sixsop` answers one it does not have.
    for sub in ["generate-key", "encrypt", "decrypt", "sign", "inline-sign", "armor", "frobnicate"] {
        for args in [&[sub][..], &["--debug", sub], &[sub, "--no-armor"]] {
            let out = run_bin(SIXSOPV, args, b"", &d);
            assert_eq!(out.status.code(), Some(69), "{args:?}");
            assert!(out.stdout.is_empty(), "{args:?}");
        }
    }
    assert_eq!(run_bin(SIXSOP, &["frobnicate"], b"", &d).status.code(), Some(69));
}

#[test]
fn verify_agrees_with_sixsop() {
    let d = tempdir("sopv-verify");
    let w = |name: &str, bytes: &[u8]| std::fs::write(d.join(name), bytes).unwrap();
    let data_in = b"The quick brown fox\r\njumps over the lazy dog.\n".repeat(100);
    w("data", &data_in);
    for (name, profile) in [("alice", "default"), ("bob", "security")] {
        let key =
            ok(&["generate-key", "--profile", profile, &format!("{name} <{name}@example.org>")], b"", &d);
        w(&format!("{name}.key"), &key);
        w(&format!("{name}.cert"), &ok(&["extract-cert"], &key, &d));
    }
    w("binary.sig", &ok(&["sign", "alice.key"], &data_in, &d));
    w("text.sig", &ok(&["sign", "--as", "text", "bob.key"], &data_in, &d));
    w("both.sig", &ok(&["sign", "alice.key", "bob.key"], &data_in, &d));
    w("binary.bin.sig", &ok(&["sign", "--no-armor", "alice.key"], &data_in, &d));
    w("inline.asc", &ok(&["inline-sign", "alice.key", "bob.key"], &data_in, &d));
    w("clearsigned.asc", &ok(&["inline-sign", "--as", "clearsigned", "bob.key"], &data_in, &d));
    w("a03.cert", &data("a03-v6-certificate.asc"));
    w("mldsa.cert", &data("v6-mldsa-65-sample-pk.asc"));
    w("mldsa.sig", &data("v6-mldsa-65-sample-signature.asc"));
    w("garbage", b"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n");
    let mut tampered = data_in.clone();
    tampered[7] ^= 1;

    let good = [
        (&["verify", "binary.sig", "alice.cert"][..], &data_in[..]),
        (&["verify", "binary.bin.sig", "alice.cert"], &data_in),
        (&["verify", "text.sig", "bob.cert"], &data_in),
        (&["verify", "both.sig", "alice.cert", "bob.cert"], &data_in),
        (&["verify", "both.sig", "bob.cert"], &data_in),
        (
            &[
                "verify",
                "--not-before",
                "2000-01-01T00:00:00Z",
                "--not-after",
                "now",
                "binary.sig",
                "alice.cert",
            ],
            &data_in,
        ),
        (&["verify", "mldsa.sig", "mldsa.cert"], b"Testing\n"),
    ];
    for (args, stdin) in good {
        assert_eq!(same(args, stdin, &d), 0, "{args:?}");
    }
    let inline = std::fs::read(d.join("inline.asc")).unwrap();
    let clearsigned = std::fs::read(d.join("clearsigned.asc")).unwrap();
    assert_eq!(same(&["inline-verify", "alice.cert", "bob.cert"], &inline, &d), 0);
    assert_eq!(same(&["inline-verify", "bob.cert"], &clearsigned, &d), 0);
    assert_eq!(same(&["inline-verify", "a03.cert"], &data("a06-cleartext-signed-message.asc"), &d), 0);
    assert_eq!(same(&["inline-verify", "a03.cert"], &data("a07-inline-signed-message.asc"), &d), 0);

    // No acceptable signature: NO_SIGNATURE (3) from both.
    for (args, stdin) in [
        (&["verify", "binary.sig", "alice.cert"][..], &tampered[..]),
        (&["verify", "binary.sig", "bob.cert"], &data_in),
        (&["verify", "text.sig", "alice.cert"], &data_in),
        (&["verify", "--not-after", "2000-01-01T00:00:00Z", "binary.sig", "alice.cert"], &data_in),
        (&["verify", "mldsa.sig", "mldsa.cert"], b"Testing\r\n\r\n"),
        (&["inline-verify", "alice.cert"], &clearsigned),
    ] {
        assert_eq!(same(args, stdin, &d), 3, "{args:?}");
    }
    // Errors: the same exit code from both.
    for (args, stdin) in [
        (&["verify", "garbage", "alice.cert"][..], &data_in[..]),
        (&["verify", "binary.sig", "missing.cert"], &data_in),
        (&["verify", "binary.sig"], &data_in),
        (&["inline-verify", "alice.cert"], &data_in),
    ] {
        assert_ne!(same(args, stdin, &d), 0, "{args:?}");
    }
    // A secret key where certificates are expected: whatever the answer, the same from both.
    let _ = same(&["verify", "binary.sig", "alice.key"], &data_in, &d);
}
