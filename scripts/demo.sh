#!/usr/bin/env bash
# Generates a key, encrypts this README to it and decrypts it again with sixsop.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p sixpgp-sop
sixsop=target/release/sixsop
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$sixsop" generate-key --profile security "Alice <alice@example.org>" >"$dir/alice.key"
"$sixsop" extract-cert <"$dir/alice.key" >"$dir/alice.cert"
echo "key: $(grep -c '' "$dir/alice.key") armored lines; certificate:"
head -n 3 "$dir/alice.cert"
"$sixsop" encrypt "$dir/alice.cert" <README.md >"$dir/message.asc"
echo "encrypted README.md: $(wc -c <"$dir/message.asc") octets"
"$sixsop" decrypt "$dir/alice.key" <"$dir/message.asc" >"$dir/roundtrip.md"
cmp README.md "$dir/roundtrip.md" && echo "decrypted: identical to README.md"
