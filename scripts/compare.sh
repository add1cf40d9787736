#!/usr/bin/env bash
# Times the release `sixsop` against the other SOP tools installed (msop, rsop, sqop) and `age` (and `rage`),
# whole process, on the same random input from tmpfs to /dev/null, side by side in one run:
# encrypt and decrypt, median wall time of RUNS runs, peak memory (max RSS), and the ratio of
# each tool's time to sixsop's (> 1 = sixsop faster). Both directions write to /dev/null: the
# message that decrypt reads is made once, untimed (writing 1 GiB into tmpfs costs the kernel
# about 0.6 s of page allocation and copying, which made encrypt look twice as slow as decrypt).
#
#   scripts/compare.sh [SIZE_MIB] [RUNS]      (defaults: 1024 MiB, 3 runs)
#
# BASELINE=path/to/sixsop adds another sixsop build to the encrypt/decrypt tables (binary and
# armored), e.g. that of the commit before a change, to compare two builds in one run.
#
# More tables follow (SECTIONS="big armored verify ratios recipients keygen aead" selects;
# default all):
# - armored: the same with ASCII armor (each SOP tool's default output; `age -a`), on the first
#   quarter of the input (ARMOR_MIB to change it);
# - verify: sixsop's peak memory for sign+encrypt and decrypt-and-verify of the same input;
# - ratios: from one run of alternating rounds (RUNS rounds, each command once per round, in
#   turn; median of each): sixsop armored against binary, sign+encrypt, decrypt+verify and
#   detached sign and verify against `openssl dgst -sha256` of the same file, and binary
#   encryption and decryption against `dd bs=256K` of the file each reads (the I/O floor), all
#   on the full input;
#   wall time, and CPU time (user + system) beside it;
# - recipients: 256 KiB encrypted to 50 recipients (each tool with 50 certificates of its own,
#   its v6 profile where it has one, and sixsop also with ML-KEM-768+X25519 certificates; age
#   and rage (`cargo install rage`) with the same 50 X25519 recipients), median of SMALL_RUNS
#   (default 21) runs, milliseconds;
# - keygen: generate-key per profile (sixsop's three, and the peer's matching v6 profile),
#   median of SMALL_RUNS runs, milliseconds;
# - aead: one 256 KiB chunk's AEAD in process, one core (benches/aead, built with
#   `--features bench-internals`), against `openssl speed -evp aes-…-ocb/gcm -bytes 262144`
#   (with `-decrypt` for decryption) run just before and just after it, AEAD_SECS (default 2)
#   seconds each; RUNS rounds, median and range of the per-round ratios.
# The small timings use bash's `time` (millisecond resolution), interleaved tool by tool.
#
# Needs /usr/bin/time. Tools that are not on PATH (or ~/.cargo/bin) are skipped; a run that
# fails (rsop refuses to decrypt 1 GiB: "Input stream too long for ProtectedCheckFirst mode")
# is shown as failed.
set -euo pipefail

size_mib=${1:-1024}
runs=${2:-3}
small_runs=${SMALL_RUNS:-21}
sections=${SECTIONS:-big armored verify ratios recipients keygen aead}
want() { [[ " $sections " == *" $1 "* ]]; }
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
PATH="$PATH:$HOME/.cargo/bin"

cargo build --release -p sixpgp-sop --manifest-path "$root/Cargo.toml" >&2
sixsop="$target/release/sixsop"

tmp=${TMPDIR_COMPARE:-/dev/shm}
work=$(mktemp -d "$tmp/compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
armor_mib=${ARMOR_MIB:-$((size_mib / 4 > 0 ? size_mib / 4 : 1))}
if want big || want verify || want ratios; then
    head -c "$((size_mib * 1024 * 1024))" /dev/urandom > "$work/plain"
fi
if want armored; then
    head -c "$((armor_mib * 1024 * 1024))" /dev/urandom > "$work/plain-armored"
fi

# Runs "$@" with stdin $1 and stdout $2 `runs` times; prints "median_seconds max_rss_kib".
measure() {
    local in=$1 out=$2; shift 2
    local i times=() rss=0 r
    for ((i = 0; i < runs; i++)); do
        if ! /usr/bin/time -f "%e %M" -o "$work/time" "$@" < "$in" > "$out" 2> "$work/stderr"; then
            echo "$1 failed: $(tail -1 "$work/stderr")" >&2
            echo "fail 0"
            return
        fi
        read -r t r < "$work/time"
        times+=("$t")
        [ "$r" -gt "$rss" ] && rss=$r
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v rss="$rss" '{a[NR]=$1} END {print a[int((NR+1)/2)], rss}'
}

# big_section MODE INPUT MIB: MODE is "binary" or "armored".
big_section() {
local mode=$1 plain=$2 mib=$3
local sop_armor=(--no-armor) age_armor=()
if [ "$mode" = armored ]; then
    sop_armor=()
    age_armor=(-a)
fi
declare -A enc dec enc_rss dec_rss
tools=()

sop_tool() {
    local name=$1 bin=$2
    command -v "$bin" > /dev/null || { echo "skip $name: not installed" >&2; return; }
    "$bin" generate-key "Cmp <cmp@example.org>" > "$work/$name.key"
    "$bin" extract-cert < "$work/$name.key" > "$work/$name.cert"
    read -r enc[$name] enc_rss[$name] < <(measure "$plain" /dev/null "$bin" encrypt "${sop_armor[@]}" "$work/$name.cert")
    "$bin" encrypt "${sop_armor[@]}" "$work/$name.cert" < "$plain" > "$work/$name.msg"
    read -r dec[$name] dec_rss[$name] < <(measure "$work/$name.msg" /dev/null "$bin" decrypt "$work/$name.key")
    if [ "${dec[$name]}" != fail ]; then
        "$bin" decrypt "$work/$name.key" < "$work/$name.msg" | cmp -s - "$plain" \
            || { echo "FAIL: $name round trip" >&2; exit 1; }
    fi
    rm -f "$work/$name.msg"
    tools+=("$name")
}

sop_tool sixsop "$sixsop"
# BASELINE: another sixsop binary (a build of an earlier commit), timed as the row "baseline".
if [ -n "${BASELINE:-}" ]; then
    [ -x "$BASELINE" ] || { echo "BASELINE=$BASELINE is not an executable" >&2; exit 1; }
    sop_tool baseline "$BASELINE"
fi
sop_tool msop msop
sop_tool rsop rsop
sop_tool sqop sqop
if command -v age > /dev/null && command -v age-keygen > /dev/null; then
    rm -f "$work/age.key" # age-keygen does not overwrite (the second section makes a new one)
    age-keygen -o "$work/age.key" 2> /dev/null
    recipient=$(age-keygen -y "$work/age.key")
    read -r enc[age] enc_rss[age] < <(measure "$plain" /dev/null age "${age_armor[@]}" -r "$recipient")
    age "${age_armor[@]}" -r "$recipient" < "$plain" > "$work/age.msg"
    read -r dec[age] dec_rss[age] < <(measure "$work/age.msg" /dev/null age -d -i "$work/age.key")
    rm -f "$work/age.msg"
    tools+=(age)
else
    echo "skip age: not installed" >&2
fi

echo
echo "Input: ${mib} MiB random, tmpfs -> /dev/null, ${mode}, median of ${runs}, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '| %-7s | %11s | %9s | %11s | %9s | %9s | %9s |\n' tool "encrypt (s)" "vs sixsop" "decrypt (s)" "vs sixsop" "enc MiB" "dec MiB"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' --------- ------------- ----------- ------------- ----------- ----------- -----------
for t in "${tools[@]}"; do
    awk -v t="$t" -v e="${enc[$t]}" -v d="${dec[$t]}" -v e0="${enc[sixsop]}" -v d0="${dec[sixsop]}" \
        -v er="${enc_rss[$t]}" -v dr="${dec_rss[$t]}" \
        'function cell(x, x0) { return x == "fail" ? sprintf("%11s | %9s", "failed", "-") : sprintf("%11.2f | %8.2fx", x, x / x0) }
         BEGIN { printf "| %-7s | %s | %s | %9.1f | %9.1f |\n", t, cell(e, e0), cell(d, d0), er / 1024, dr / 1024 }'
done
}

want big && big_section binary "$work/plain" "$size_mib"
want armored && big_section armored "$work/plain-armored" "$armor_mib"
rm -f "$work/plain-armored"

# Median of the elapsed milliseconds of `small_runs` runs of "$@" (stdin from $SMALL_IN).
small_median() {
    local i t times=()
    for ((i = 0; i < small_runs; i++)); do
        t=$( { TIMEFORMAT=%3R; time "$@" < "${SMALL_IN:-/dev/null}" > /dev/null 2> /dev/null; } 2>&1 )
        times+=("$t")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] * 1000}'
}

if want verify; then
    "$sixsop" generate-key "Signer <signer@example.org>" > "$work/signer.key"
    "$sixsop" extract-cert < "$work/signer.key" > "$work/signer.cert"
    "$sixsop" generate-key "Rcpt <rcpt@example.org>" > "$work/rcpt.key"
    "$sixsop" extract-cert < "$work/rcpt.key" > "$work/rcpt.cert"
    read -r se_t se_rss < <(measure "$work/plain" "$work/signed.msg" "$sixsop" encrypt --no-armor \
        --sign-with "$work/signer.key" "$work/rcpt.cert")
    # SOP refuses to overwrite --verifications-out: remove it before each run.
    cat > "$work/verify.sh" << EOF
#!/bin/sh
rm -f "$work/verifications"
exec "$sixsop" decrypt --verify-with "$work/signer.cert" --verifications-out "$work/verifications" "$work/rcpt.key"
EOF
    chmod +x "$work/verify.sh"
    read -r dv_t dv_rss < <(measure "$work/signed.msg" /dev/null "$work/verify.sh")
    grep -q . "$work/verifications" || { echo "FAIL: no verification" >&2; exit 1; }
    rm -f "$work/signed.msg"
    echo
    echo "sixsop, ${size_mib} MiB signed and encrypted (Ed25519 signer, X25519 recipient), median of ${runs}:"
    echo "| operation | time (s) | peak MiB |"
    echo "|---|---|---|"
    awk -v t="$se_t" -v r="$se_rss" 'BEGIN { printf "| encrypt --sign-with (output to tmpfs) | %.2f | %.1f |\n", t, r / 1024 }'
    awk -v t="$dv_t" -v r="$dv_rss" 'BEGIN { printf "| decrypt --verify-with | %.2f | %.1f |\n", t, r / 1024 }'
fi
if want ratios; then
    "$sixsop" generate-key "Signer <signer@example.org>" > "$work/r-signer.key"
    "$sixsop" extract-cert < "$work/r-signer.key" > "$work/r-signer.cert"
    "$sixsop" generate-key "Rcpt <rcpt@example.org>" > "$work/r-rcpt.key"
    "$sixsop" extract-cert < "$work/r-rcpt.key" > "$work/r-rcpt.cert"
    k="$work/r-rcpt.key" c="$work/r-rcpt.cert" sk="$work/r-signer.key" sc="$work/r-signer.cert"
    "$sixsop" encrypt --no-armor "$c" < "$work/plain" > "$work/r.bin"
    "$sixsop" encrypt "$c" < "$work/plain" > "$work/r.asc"
    "$sixsop" encrypt --no-armor --sign-with "$sk" "$c" < "$work/plain" > "$work/r-signed.bin"
    "$sixsop" sign --no-armor "$sk" < "$work/plain" > "$work/r.sig"
    # name|command (stdin and stdout redirected inside; SOP refuses to overwrite
    # --verifications-out, so it is removed first).
    ratio_cmds=(
        "dd|dd if='$work/plain' bs=256K of=/dev/null status=none"
        "dd-msg|dd if='$work/r.bin' bs=256K of=/dev/null status=none"
        "dgst|openssl dgst -sha256 < '$work/plain' > /dev/null"
        "enc-bin|'$sixsop' encrypt --no-armor '$c' < '$work/plain' > /dev/null"
        "dec-bin|'$sixsop' decrypt '$k' < '$work/r.bin' > /dev/null"
        "enc-asc|'$sixsop' encrypt '$c' < '$work/plain' > /dev/null"
        "dec-asc|'$sixsop' decrypt '$k' < '$work/r.asc' > /dev/null"
        "sign-enc|'$sixsop' encrypt --no-armor --sign-with '$sk' '$c' < '$work/plain' > /dev/null"
        "dec-verify|rm -f '$work/r-ver'; '$sixsop' decrypt --verify-with '$sc' --verifications-out '$work/r-ver' '$k' < '$work/r-signed.bin' > /dev/null"
        "sign|'$sixsop' sign --no-armor '$sk' < '$work/plain' > /dev/null"
        "verify|'$sixsop' verify '$work/r.sig' '$sc' < '$work/plain' > /dev/null"
    )
    declare -A ratio_times ratio_cpu
    for ((round = 0; round < runs; round++)); do
        for entry in "${ratio_cmds[@]}"; do
            name=${entry%%|*}
            # Wall time from bash (milliseconds), CPU time from /usr/bin/time (centiseconds).
            t=$( { TIMEFORMAT=%3R; time /usr/bin/time -f "%U %S" -o "$work/time" bash -c "${entry#*|}" 2> /dev/null; } 2>&1 ) \
                || { echo "FAIL: $name" >&2; exit 1; }
            read -r u s < "$work/time"
            ratio_times[$name]+="$t "
            ratio_cpu[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
        done
    done
    grep -q . "$work/r-ver" || { echo "FAIL: no verification" >&2; exit 1; }
    rm -f "$work/r.bin" "$work/r.asc" "$work/r-signed.bin"
    med() { tr ' ' '\n' <<< "$1" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    row() { # label, name, reference name, target
        awk -v l="$1" -v t="$(med "${ratio_times[$2]}")" -v r="$(med "${ratio_times[$3]}")" \
            -v c="$(med "${ratio_cpu[$2]}")" -v rc="$(med "${ratio_cpu[$3]}")" -v g="$4" \
            'BEGIN { printf "| %s | %.3f | %.3f | %s | %.2f / %.2f | %s | %s |\n", l, t, r,
                     (r > 0 ? sprintf("%.2fx", t / r) : "n/a"), c, rc, (rc > 0 ? sprintf("%.2fx", c / rc) : "n/a"), g }'
    }
    echo
    echo "Ratios, ${size_mib} MiB from tmpfs to /dev/null, median of ${runs} alternating rounds; load $(cut -d' ' -f1 /proc/loadavg)."
    echo "Wall time is what the targets count; CPU time (user + system, all threads) shows what the work costs."
    echo "| figure | time (s) | reference (s) | ratio | CPU (s), figure / reference | CPU ratio | target |"
    echo "|---|---|---|---|---|---|---|"
    # Each against dd of the file it reads: tmpfs reads some files faster than others of the
    # same size (the message, written by sixsop, by about a tenth here).
    row "encrypt binary vs dd bs=256K of the plaintext" enc-bin dd "<= 1.25x"
    row "decrypt binary vs dd bs=256K of the message" dec-bin dd-msg "<= 1.25x"
    row "encrypt armored vs binary" enc-asc enc-bin "<= 1.5x"
    row "decrypt armored vs binary" dec-asc dec-bin "<= 1.5x"
    row "encrypt --sign-with vs openssl dgst -sha256" sign-enc dgst "<= 1.1x"
    row "decrypt --verify-with vs openssl dgst -sha256" dec-verify dgst "<= 1.1x"
    row "sign (detached) vs openssl dgst -sha256" sign dgst "<= 1.0x"
    row "verify (detached) vs openssl dgst -sha256" verify dgst "<= 1.0x"
fi
rm -f "$work/plain"

if want recipients; then
    head -c 262144 /dev/urandom > "$work/small"
    declare -A rcpt_ms
    rcpt_tools=()
    # name binary profile
    for spec in "sixsop $sixsop default" "sixsop-pqc $sixsop pqc-encryption" "msop msop default" \
        "rsop rsop performance" "sqop sqop rfc9580"; do
        read -r name bin profile <<< "$spec"
        command -v "$bin" > /dev/null || continue
        mkdir -p "$work/r-$name"
        for ((i = 1; i <= 50; i++)); do
            "$bin" generate-key --profile "$profile" "R$i <r$i@example.org>" | "$bin" extract-cert > "$work/r-$name/c$i"
        done
        rcpt_tools+=("$name:$bin")
    done
    # age and rage: the same 50 X25519 recipients.
    keygen=$(command -v age-keygen || command -v rage-keygen || true)
    age_args=()
    if [ -n "$keygen" ]; then
        for ((i = 1; i <= 50; i++)); do
            age_args+=(-r "$("$keygen" 2> /dev/null | grep -o 'age1[a-z0-9]*')")
        done
    fi
    for entry in "${rcpt_tools[@]}"; do
        name=${entry%%:*}
        bin=${entry#*:}
        certs=()
        for ((i = 1; i <= 50; i++)); do certs+=("$work/r-$name/c$i"); done
        rcpt_ms[$name]=$(SMALL_IN="$work/small" small_median "$bin" encrypt --no-armor "${certs[@]}")
    done
    for bin in age rage; do
        if [ -n "$keygen" ] && command -v "$bin" > /dev/null; then
            rcpt_ms[$bin]=$(SMALL_IN="$work/small" small_median "$bin" "${age_args[@]}")
            rcpt_tools+=("$bin:$bin")
        fi
    done
    echo
    echo "256 KiB to 50 recipients, whole process, median of ${small_runs} (ms); load $(cut -d' ' -f1 /proc/loadavg):"
    echo "| tool | ms | vs sixsop |"
    echo "|---|---|---|"
    for entry in "${rcpt_tools[@]}"; do
        name=${entry%%:*}
        awk -v n="$name" -v t="${rcpt_ms[$name]}" -v t0="${rcpt_ms[sixsop]}" \
            'BEGIN { printf "| %s | %.1f | %.2fx |\n", n, t, t / t0 }'
    done
fi

if want keygen; then
    echo
    echo "generate-key, whole process, median of ${small_runs} (ms); load $(cut -d' ' -f1 /proc/loadavg):"
    echo "| profile | sixsop | msop | rsop | sqop |"
    echo "|---|---|---|---|---|"
    # sixsop profile, then the matching profile of msop, rsop, sqop ("-" = none).
    for spec in "default default performance rfc9580" "security security security rfc9980" \
        "pqc-encryption pqc-encryption@minipgp6.org - -"; do
        read -r p pm pr pq <<< "$spec"
        row="| $p | $(small_median "$sixsop" generate-key --profile "$p" "K <k@example.org>")"
        for pair in "msop:$pm" "rsop:$pr" "sqop:$pq"; do
            bin=${pair%%:*}
            prof=${pair#*:}
            if [ "$prof" = - ] || ! command -v "$bin" > /dev/null; then
                row="$row | -"
            else
                row="$row | $(small_median "$bin" generate-key --profile "$prof" "K <k@example.org>")"
            fi
        done
        echo "$row |"
    done
fi

if want aead; then
    if ! command -v openssl > /dev/null; then
        echo "skip aead: openssl not installed" >&2
    else
        # The criterion bench binary, built once; its results go to the scratch directory so
        # that the run leaves no baseline behind in target/criterion.
        bench=$(cargo bench --features bench-internals --bench aead --no-run \
            --manifest-path "$root/Cargo.toml" 2>&1 | grep -o '(\S*/deps/aead-[0-9a-f]*)' | tr -d '()')
        [[ "$bench" = /* ]] || bench="$root/$bench"
        # Nanoseconds per iteration of one criterion benchmark (its median), for 256 KiB.
        aead_ns() {
            (cd "$root" && CRITERION_HOME="$work/criterion" "$bench" --bench --warm-up-time 1 \
                --measurement-time "$aead_secs" --noplot "^aead/$1/$2/262144\$" > /dev/null 2>&1)
            sed 's/.*"median":{"confidence_interval":{[^}]*},"point_estimate":\([0-9.e+-]*\).*/\1/' \
                "$work/criterion/aead/${1}_$2/262144/new/estimates.json"
        }
        # Octets per second of `openssl speed -evp` on 256 KiB (its figure is in 1000s of
        # octets), encrypting or decrypting.
        openssl_bps() {
            local cipher="aes-${1:3:3}-${1#*-}" dir=() # aes256-ocb -> aes-256-ocb
            [ "$2" = decrypt ] && dir=(-decrypt)
            openssl speed "${dir[@]}" -evp "$cipher" -bytes 262144 -seconds "$aead_secs" 2> /dev/null \
                | tail -1 | awk '{ v = $2; sub(/k$/, "", v); print v * 1000 }'
        }
        aead_secs=${AEAD_SECS:-2}
        declare -A ratios gbps ossl
        for ((round = 1; round <= runs; round++)); do
            for suite in aes256-ocb aes128-ocb aes256-gcm aes128-gcm; do
                for op in encrypt decrypt; do
                    # openssl just before and after ours, averaged: the machine's speed drifts.
                    before=$(openssl_bps "$suite" "$op")
                    ns=$(aead_ns "$suite" "$op")
                    after=$(openssl_bps "$suite" "$op")
                    read -r g o r < <(awk -v ns="$ns" -v a="$before" -v b="$after" \
                        'BEGIN { g = 262144 / ns; o = (a + b) / 2e9; printf "%.2f %.2f %.0f\n", g, o, 100 * g / o }')
                    gbps[$suite/$op]+="$g "
                    ossl[$suite/$op]+="$o "
                    ratios[$suite/$op]+="$r "
                done
            done
        done
        # "median (min-max)" of a list of numbers.
        spread() {
            tr ' ' '\n' <<< "$1" | grep . | sort -n \
                | awk '{ a[NR] = $1 } END { printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR] }'
        }
        echo
        echo "AEAD of one 256 KiB chunk, one core, in process (benches/aead) against"
        echo "\`openssl speed -evp\` (decrypting: \`-decrypt\`) run just before and after it;"
        echo "median (min-max) of ${runs} rounds;"
        echo "load $(cut -d' ' -f1 /proc/loadavg):"
        echo "| suite | sixpgp GB/s | openssl GB/s | % of openssl |"
        echo "|---|---|---|---|"
        for suite in aes256-ocb aes128-ocb aes256-gcm aes128-gcm; do
            for op in encrypt decrypt; do
                echo "| $suite $op | $(spread "${gbps[$suite/$op]}") | $(spread "${ossl[$suite/$op]}") | $(spread "${ratios[$suite/$op]}") |"
            done
        done
    fi
fi
