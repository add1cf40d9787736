#!/usr/bin/env bash
# Encrypts and decrypts a large file (default 1 GiB) through the release `sixsop` and checks
# that the output matches and that peak memory (max RSS) stays under a bound (default 32 MiB).
# Then does the same with signing: `encrypt --sign-with` and `decrypt --verify-with
# --verifications-out`, which must stay under the same bound and report one good signature.
#
#   scripts/bigfile.sh [SIZE_MIB] [MAX_RSS_MIB]
#
# Uses /usr/bin/time -v when present, else the kernel's VmHWM via a polling loop.
set -euo pipefail

size_mib=${1:-1024}
max_rss_mib=${2:-32}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

cargo build --release -p sixpgp-sop --manifest-path "$root/Cargo.toml" >&2
sop="$target/release/sixsop"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$sop" generate-key "Big <big@example.org>" > "$work/key"
"$sop" extract-cert < "$work/key" > "$work/cert"

# Peak RSS in KiB of a command reading $2 and writing $3.
peak_rss() {
    local in=$1 out=$2; shift 2
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$@" < "$in" > "$out" 2> "$work/time"
        awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time"
    else
        "$@" < "$in" > "$out" &
        local pid=$! peak=0 hwm
        while kill -0 "$pid" 2>/dev/null; do
            hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
            [ "${hwm:-0}" -gt "$peak" ] && peak=$hwm
            sleep 0.05
        done
        wait "$pid"
        echo "$peak"
    fi
}

# Pseudo-random data, generated in a stream (no 1 GiB buffer in memory).
head -c "$((size_mib * 1024 * 1024))" /dev/urandom > "$work/plain"

start=$(date +%s.%N)
enc_kib=$(peak_rss "$work/plain" "$work/msg" "$sop" encrypt --no-armor "$work/cert")
mid=$(date +%s.%N)
dec_kib=$(peak_rss "$work/msg" "$work/out" "$sop" decrypt "$work/key")
end=$(date +%s.%N)

cmp "$work/plain" "$work/out"
rm -f "$work/out"

# Sign+encrypt and decrypt-and-verify in one pass each.
"$sop" generate-key "Signer <signer@example.org>" > "$work/skey"
"$sop" extract-cert < "$work/skey" > "$work/scert"
s_start=$(date +%s.%N)
senc_kib=$(peak_rss "$work/plain" "$work/smsg" "$sop" encrypt --no-armor --sign-with "$work/skey" "$work/cert")
s_mid=$(date +%s.%N)
sdec_kib=$(peak_rss "$work/smsg" "$work/out" "$sop" decrypt --verify-with "$work/scert" \
    --verifications-out "$work/verifications" "$work/key")
s_end=$(date +%s.%N)
cmp "$work/plain" "$work/out"
if [ "$(grep -c . "$work/verifications")" != 1 ]; then
    echo "FAIL: expected one good signature, got:" >&2
    cat "$work/verifications" >&2
    exit 1
fi

enc_s=$(echo "$mid - $start" | bc)
dec_s=$(echo "$end - $mid" | bc)
echo "size: ${size_mib} MiB; ciphertext $(stat -c %s "$work/msg") octets"
echo "encrypt: ${enc_s} s, peak RSS $((enc_kib / 1024)) MiB (${enc_kib} KiB)"
echo "decrypt: ${dec_s} s, peak RSS $((dec_kib / 1024)) MiB (${dec_kib} KiB)"
echo "sign+encrypt: $(echo "$s_mid - $s_start" | bc) s, peak RSS $((senc_kib / 1024)) MiB (${senc_kib} KiB)"
echo "decrypt+verify: $(echo "$s_end - $s_mid" | bc) s, peak RSS $((sdec_kib / 1024)) MiB (${sdec_kib} KiB)"
echo "verification: $(cat "$work/verifications")"
limit=$((max_rss_mib * 1024))
if [ "$enc_kib" -gt "$limit" ] || [ "$dec_kib" -gt "$limit" ] \
    || [ "$senc_kib" -gt "$limit" ] || [ "$sdec_kib" -gt "$limit" ]; then
    echo "FAIL: peak RSS above ${max_rss_mib} MiB" >&2
    exit 1
fi
echo "OK: outputs match, signature verified, peak RSS under ${max_rss_mib} MiB"
