//! ARCHITECTURE.md's table of `Limits` names every limit the code has, by its getter, with
//! the default `Limits::default()` gives it, and nothing else.
#![allow(clippy::unwrap_used, clippy::panic, reason = "a test fails by panicking")]

use std::collections::BTreeMap;

use sixpgp::Limits;

/// The header row of the table.
const HEADER: &str = "| Limit | Default | Checked in |";

/// The rows of the table: getter → default (the leading integer of its cell).
fn documented() -> BTreeMap<String, u64> {
    let path = manifest_dir().join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines().skip_while(|l| l.trim() != HEADER);
    assert!(lines.next().is_some(), "no `{HEADER}` table in {}", path.display());
    let mut rows = BTreeMap::new();
    // After the header: the separator row, then one row per limit up to the first other line.
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [name, default, _checked_in] = cells[..] else { panic!("not three cells: {line}") };
        let name = name.trim_matches('`').to_owned();
        let digits: String = default.chars().take_while(char::is_ascii_digit).collect();
        let value = digits.parse().unwrap_or_else(|_| panic!("{name}: no number in {default:?}"));
        assert!(rows.insert(name.clone(), value).is_none(), "{name} twice");
    }
    rows
}

/// The code's limits: each field of `Limits`'s `Debug` output as its getter, `max_` and the
/// field's name, with its default.
fn in_code() -> BTreeMap<String, u64> {
    let debug = format!("{:?}", Limits::default());
    let fields = debug.strip_prefix("Limits {").and_then(|s| s.strip_suffix('}')).unwrap();
    fields
        .split(',')
        .map(|field| {
            let (name, value) = field.split_once(':').unwrap();
            (format!("max_{}", name.trim()), value.trim().parse().unwrap())
        })
        .collect()
}

#[test]
fn the_limits_table_matches_the_code() {
    let (documented, code) = (documented(), in_code());
    assert!(!code.is_empty());
    let missing: Vec<_> = code.keys().filter(|k| !documented.contains_key(*k)).collect();
    let unknown: Vec<_> = documented.keys().filter(|k| !code.contains_key(*k)).collect();
    assert!(missing.is_empty() && unknown.is_empty(), "missing {missing:?}, not in the code {unknown:?}");
    for (name, value) in &code {
        assert_eq!(documented[name], *value, "the default of {name}");
    }
}

/// The getters the table names are the public API's: a few spot checks that `max_` + field is
/// the getter and the `Debug` value its default.
#[test]
fn debug_fields_are_the_getters() {
    let code = in_code();
    let limits = Limits::default();
    assert_eq!(code["max_argon2_memory_kib"], limits.max_argon2_memory_kib());
    assert_eq!(code["max_s2k_iterations"], limits.max_s2k_iterations());
    assert_eq!(code["max_unlock_derivations"], limits.max_unlock_derivations() as u64);
    assert_eq!(code["max_cleartext_len"], limits.max_cleartext_len() as u64);
}

/// The package's directory: as `cargo test` gives it when it runs the test (a build reused from
/// another copy of the package still finds this copy's files), else where it was built.
fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}
