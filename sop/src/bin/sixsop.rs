//! `sixsop`: the Stateless OpenPGP command-line tool on sixpgp (every subcommand).
#![forbid(unsafe_code)]

fn main() {
    // A closed pipe must give an error exit, not a panic: Rust ignores SIGPIPE, so writes fail
    // with `BrokenPipe`, which the frontend turns into an exit code.
    sop::cli::main(&mut sixpgp_sop::SixSop::new(), sop::cli::Variant::Full);
}
