#!/usr/bin/env bash
# Performance regression guard: compares the CPU time (user + system, all threads) of this
# tree's release `sixsop` with that of a baseline commit (the last release, recorded in
# scripts/perf-baseline), on the same input, in interleaved pairs, and fails when an operation
# costs more than LIMIT times the baseline. Wall time is shown beside it, so that
# `scripts/perf-guard.sh 1024 9` is also the A/B of this tree against the last release.
#
#   scripts/perf-guard.sh [SIZE_MIB] [ROUNDS]     (defaults: 512 MiB, 9 rounds)
#
# Operations: binary and armored encryption and decryption, a detached signature and its
# verification, signed binary encryption, and the post-quantum path: PQC_COUNT (default 20)
# runs of `sixsop encrypt` of a 100-octet message to 50 security-profile certificates
# (ML-KEM-768+X25519 encapsulations, ML-DSA-65+Ed25519 self-signature checks), where the
# post-quantum work, not the start of a process, is most of the cost. Each round runs every operation with both builds, the order of the two alternating from round to
# round; the figure is the median over the rounds of each pair's ratio (this tree / baseline).
# CPU time in pairs is what stays stable on a shared machine: wall time moves with whatever
# else runs, and a cost on a thread that is not the bottleneck (the calling thread's copies
# while workers encrypt, say) shows in CPU time before it shows in wall time.
#
# The baseline is built from `git archive` of its commit with its own Cargo.lock (`--locked`)
# and kept, keyed by commit and compiler, in $PERF_GUARD_CACHE (default
# ~/.cache/sixpgp-perf-guard), so later runs only build this tree. LIMIT (default 1.10) sets
# the threshold; PQC_LIMIT (default 0.85) that of the post-quantum path, which must stay well
# below the last release's cost, not merely near it. PERF_GUARD_REPO names the
# git repository to take the baseline from when this tree is a copy without one (`.ci/run` runs
# the guard on a copy resolved to the newest dependency releases).
set -euo pipefail

size_mib=${1:-512}
rounds=${2:-9}
limit=${LIMIT:-1.10}
pqc_limit=${PQC_LIMIT:-0.85}
pqc_count=${PQC_COUNT:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
# The git repository holding the baseline commit: this tree's, unless it is a copy without one.
repo=${PERF_GUARD_REPO:-$root}
target=${CARGO_TARGET_DIR:-$root/target}
baseline_commit=$(sed -n 's/^commit //p' "$root/scripts/perf-baseline")
cache=${PERF_GUARD_CACHE:-$HOME/.cache/sixpgp-perf-guard}
rustc_version=$(rustc --version | tr -c 'A-Za-z0-9.\n' '_')
baseline_bin="$cache/$baseline_commit-$rustc_version/sixsop"

echo "building this tree's release sixsop" >&2
cargo build --release --quiet -p sixpgp-sop --bin sixsop --manifest-path "$root/Cargo.toml"
current_bin="$target/release/sixsop"

if [[ ! -x "$baseline_bin" ]] && ! git -C "$repo" cat-file -e "$baseline_commit^{commit}" 2> /dev/null; then
    # A shallow clone: there is nothing to build the baseline from.
    echo "perf guard: SKIPPED, the baseline commit $baseline_commit is not in this clone" \
        "(fetch the history, or keep a built baseline in $cache)"
    exit 0
fi
if [[ ! -x "$baseline_bin" ]]; then
    echo "building the baseline sixsop ($baseline_commit)" >&2
    src=$(mktemp -d)
    git -C "$repo" archive "$baseline_commit" | tar -x -C "$src"
    CARGO_TARGET_DIR="$target/perf-baseline" cargo build --release --quiet --locked \
        -p sixpgp-sop --bin sixsop --manifest-path "$src/Cargo.toml"
    mkdir -p "$(dirname "$baseline_bin")"
    cp "$target/perf-baseline/release/sixsop" "$baseline_bin.tmp"
    mv "$baseline_bin.tmp" "$baseline_bin"
    rm -rf "$src"
fi

work=$(mktemp -d "${TMPDIR_GUARD:-/dev/shm}/perf-guard.XXXXXX")
trap 'rm -rf "$work"' EXIT
head -c "$((size_mib * 1024 * 1024))" /dev/urandom > "$work/plain"
"$current_bin" generate-key "Guard <guard@example.org>" > "$work/key"
"$current_bin" extract-cert < "$work/key" > "$work/cert"
"$current_bin" encrypt --no-armor "$work/cert" < "$work/plain" > "$work/msg.bin"
"$current_bin" encrypt "$work/cert" < "$work/plain" > "$work/msg.asc"
"$current_bin" sign "$work/key" < "$work/plain" > "$work/sig"
pqc_certs=""
for ((i = 0; i < 50; i++)); do
    "$current_bin" generate-key --profile security "Guard $i <guard$i@example.org>" |
        "$current_bin" extract-cert > "$work/pqc$i.cert"
    pqc_certs+=" $work/pqc$i.cert"
done
head -c 100 /dev/urandom > "$work/pqc.plain"

# name | arguments | input | limit [| runs]. Detached signing hashes on the calling thread, as
# 0.1 did; signing while encrypting hashes on a thread of its own (0.1 did not, and was slower).
ops=(
    "encrypt, binary|encrypt --no-armor $work/cert|$work/plain|$limit"
    "decrypt, binary|decrypt $work/key|$work/msg.bin|$limit"
    "encrypt, armored|encrypt $work/cert|$work/plain|$limit"
    "decrypt, armored|decrypt $work/key|$work/msg.asc|$limit"
    "sign|sign $work/key|$work/plain|$limit"
    "verify|verify $work/sig $work/cert|$work/plain|$limit"
    "encrypt, signed|encrypt --no-armor --sign-with $work/key $work/cert|$work/plain|$limit"
    "50 PQC certs x$pqc_count|encrypt --no-armor$pqc_certs|$work/pqc.plain|$pqc_limit|$pqc_count"
)

# Wall and CPU seconds (user + system) of RUNS (default 1) runs; fails if a run fails.
measure() {
    local bin=$1 args=$2 input=$3 runs=${4:-1} t
    # shellcheck disable=SC2086 # the arguments are paths without spaces, split on purpose
    t=$( { TIMEFORMAT='%3R %3U %3S'; time for ((i = 0; i < runs; i++)); do
        "$bin" $args < "$input" > /dev/null 2> "$work/stderr" || exit 1
    done; } 2>&1 ) || {
        echo "failed: $bin $args" >&2
        cat "$work/stderr" >&2
        exit 1
    }
    awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f %.3f", a[1], a[2] + a[3] }'
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One untimed run of each, so that both binaries and the input are in the page cache.
for op in "${ops[@]}"; do
    IFS='|' read -r _ args input _ runs <<< "$op"
    measure "$current_bin" "$args" "$input" "$runs" > /dev/null
    measure "$baseline_bin" "$args" "$input" "$runs" > /dev/null
done

declare -A ratios base_cpu cur_cpu base_wall cur_wall
for ((r = 0; r < rounds; r++)); do
    for op in "${ops[@]}"; do
        IFS='|' read -r name args input _ runs <<< "$op"
        # Assigned first: `set -e` stops the script when a run fails only in an assignment.
        if ((r % 2 == 0)); then
            cur=$(measure "$current_bin" "$args" "$input" "$runs")
            base=$(measure "$baseline_bin" "$args" "$input" "$runs")
        else
            base=$(measure "$baseline_bin" "$args" "$input" "$runs")
            cur=$(measure "$current_bin" "$args" "$input" "$runs")
        fi
        read -r cw c <<< "$cur"
        read -r bw b <<< "$base"
        cur_cpu[$name]+="$c "
        base_cpu[$name]+="$b "
        cur_wall[$name]+="$cw "
        base_wall[$name]+="$bw "
        ratios[$name]+="$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.4f", (b > 0) ? c / b : 99 }') "
    done
done

# The limit applies to the CPU ratio (the median of the pairs' ratios); wall time, the ratio
# of the medians, is shown beside it.
echo "perf guard: $size_mib MiB, $rounds interleaved rounds, against $baseline_commit; medians, wall / CPU (user + system) seconds"
printf '%-18s %15s %15s %10s %10s %6s %s\n' operation "baseline (s)" "this (s)" "wall ratio" "CPU ratio" limit "CPU pair ratios"
failed=0
for op in "${ops[@]}"; do
    IFS='|' read -r name _ _ op_limit _ <<< "$op"
    ratio=$(median <<< "${ratios[$name]}")
    bw=$(median <<< "${base_wall[$name]}")
    cw=$(median <<< "${cur_wall[$name]}")
    wall_ratio=$(awk -v c="$cw" -v b="$bw" 'BEGIN { printf "%.3f", (b > 0) ? c / b : 99 }')
    printf '%-18s %15s %15s %9sx %9.3fx %6sx %s\n' "$name" "$bw / $(median <<< "${base_cpu[$name]}")" \
        "$cw / $(median <<< "${cur_cpu[$name]}")" "$wall_ratio" "$ratio" "$op_limit" "${ratios[$name]}"
    if awk -v r="$ratio" -v l="$op_limit" 'BEGIN { exit !(r > l) }'; then
        echo "  $name: above its limit of ${op_limit}x" >&2
        failed=1
    fi
done
if ((failed)); then
    echo "perf guard: FAILED (an operation costs more CPU time than its limit allows)" >&2
    exit 1
fi
echo "perf guard: passed (every operation within its limit)"
