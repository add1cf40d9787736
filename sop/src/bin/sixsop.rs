//! `sixsop`: the Stateless OpenPGP command-line tool on sixpgp (every subcommand).
#![forbid(unsafe_code)]

use std::process::{Command, exit};

#[path = "../cli_args.rs"]
mod cli_args;

use cli_args::{Extensions, take_extensions};

fn main() {
    let args: Vec<_> = std::env::args_os().collect();
    let (rest, ext) = match take_extensions(&args) {
        Ok(found) => found,
        Err((code, message)) => {
            eprintln!("sixsop: {message}");
            exit(code);
        }
    };
    if ext.is_empty() {
        // A closed pipe must give an error exit, not a panic: Rust ignores SIGPIPE, so writes
        // fail with `BrokenPipe`, which the frontend turns into an exit code.
        let mut sixsop =
            Extensions::from_env().apply(sixpgp_sop::SixSop::new()).plaintext_len(stdin_file_len());
        sop::cli::main(&mut sixsop, sop::cli::Variant::Full);
    }
    exit(run_without(&rest, &ext));
}

/// The octets left in standard input when it is a regular file (`sixsop encrypt < FILE`), so
/// that `encrypt` can write a message that seeks in O(1) chunks.
#[cfg(unix)]
fn stdin_file_len() -> Option<u64> {
    use std::io::Seek;
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let mut file = std::fs::File::from(fd);
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    meta.len().checked_sub(file.stream_position().ok()?)
}

#[cfg(not(unix))]
fn stdin_file_len() -> Option<u64> {
    None
}

/// Runs this program again on `rest` (the arguments without the -15 options, which the
/// frontend would refuse), handing it `ext`; returns its exit code. Standard input and output
/// and every inherited file descriptor (`@FD:`) go to it untouched.
fn run_without(rest: &[std::ffi::OsString], ext: &Extensions) -> i32 {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("sixsop: cannot find its own executable: {e}");
            return 1;
        }
    };
    let mut child = Command::new(exe);
    let _ = child.args(rest.iter().skip(1));
    #[cfg(unix)]
    if let Some(argv0) = rest.first() {
        let _ = std::os::unix::process::CommandExt::arg0(&mut child, argv0);
    }
    ext.to_env(&mut child);
    match child.status() {
        Ok(status) => status.code().unwrap_or_else(|| {
            // Killed by a signal: the shell's convention, 128 + the signal number.
            #[cfg(unix)]
            {
                std::os::unix::process::ExitStatusExt::signal(&status).map_or(1, |s| s.saturating_add(128))
            }
            #[cfg(not(unix))]
            {
                1
            }
        }),
        Err(e) => {
            eprintln!("sixsop: cannot run itself: {e}");
            1
        }
    }
}
