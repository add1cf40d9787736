//! Running the built `sixsop` binary from the CLI tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]
#![allow(clippy::unwrap_used, clippy::panic, reason = "test helpers fail the test by panicking")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A file from the library's `tests/data/`.
pub(crate) fn data(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data").join(name)).unwrap()
}

/// Runs `sixsop` with `args` in `dir`, feeding it `stdin`.
pub(crate) fn run(args: &[&str], stdin: &[u8], dir: &Path) -> Output {
    run_bin(env!("CARGO_BIN_EXE_sixsop"), args, stdin, dir)
}

/// Runs the binary `exe` (`sixsop` or `sixsopv`) with `args` in `dir`, feeding it `stdin`.
pub(crate) fn run_bin(exe: &str, args: &[&str], stdin: &[u8], dir: &Path) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // Fed from another thread while the output is collected: a child that streams fills the
    // output pipe before it has read all of a large input.
    std::thread::scope(|scope| {
        let _ = scope.spawn(move || {
            // A child that fails early (an exit-code test) may close its stdin first.
            if let Err(e) = input.write_all(stdin) {
                assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
            }
        });
        child.wait_with_output().unwrap()
    })
}

/// Runs `sixsop`, expects success, returns its output.
pub(crate) fn ok(args: &[&str], stdin: &[u8], dir: &Path) -> Vec<u8> {
    let out = run(args, stdin, dir);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// Runs `sixsop` and returns its exit code.
pub(crate) fn code(args: &[&str], stdin: &[u8], dir: &Path) -> i32 {
    run(args, stdin, dir).status.code().unwrap()
}

/// A fresh directory for one test, removed with what it holds when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn as_path(&self) -> &Path {
        &self.0
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh directory for one test (see [`TempDir`]).
pub(crate) fn tempdir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("sixsop-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}
