#!/usr/bin/env bash
# Times the release `sixsop` against the other SOP tools installed (msop, rsop, sqop) and `age`,
# whole process, on the same random input from tmpfs to /dev/null, side by side in one run:
# encrypt and decrypt, median wall time of RUNS runs, peak memory (max RSS), and the ratio of
# each tool's time to sixsop's (> 1 = sixsop faster). Both directions write to /dev/null: the
# message that decrypt reads is made once, untimed (writing 1 GiB into tmpfs costs the kernel
# about 0.6 s of page allocation and copying, which made encrypt look twice as slow as decrypt).
#
#   scripts/compare.sh [SIZE_MIB] [RUNS]      (defaults: 1024 MiB, 3 runs)
#
# Needs /usr/bin/time. Tools that are not on PATH (or ~/.cargo/bin) are skipped; a run that
# fails (rsop refuses to decrypt 1 GiB: "Input stream too long for ProtectedCheckFirst mode")
# is shown as failed.
set -euo pipefail

size_mib=${1:-1024}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
PATH="$PATH:$HOME/.cargo/bin"

cargo build --release -p sixpgp-sop --manifest-path "$root/Cargo.toml" >&2
sixsop="$target/release/sixsop"

tmp=${TMPDIR_COMPARE:-/dev/shm}
work=$(mktemp -d "$tmp/compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
head -c "$((size_mib * 1024 * 1024))" /dev/urandom > "$work/plain"

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

declare -A enc dec enc_rss dec_rss
tools=()

sop_tool() {
    local name=$1 bin=$2
    command -v "$bin" > /dev/null || { echo "skip $name: not installed" >&2; return; }
    "$bin" generate-key "Cmp <cmp@example.org>" > "$work/$name.key"
    "$bin" extract-cert < "$work/$name.key" > "$work/$name.cert"
    read -r enc[$name] enc_rss[$name] < <(measure "$work/plain" /dev/null "$bin" encrypt --no-armor "$work/$name.cert")
    "$bin" encrypt --no-armor "$work/$name.cert" < "$work/plain" > "$work/$name.msg"
    read -r dec[$name] dec_rss[$name] < <(measure "$work/$name.msg" /dev/null "$bin" decrypt "$work/$name.key")
    if [ "${dec[$name]}" != fail ]; then
        "$bin" decrypt "$work/$name.key" < "$work/$name.msg" | cmp -s - "$work/plain" \
            || { echo "FAIL: $name round trip" >&2; exit 1; }
    fi
    rm -f "$work/$name.msg"
    tools+=("$name")
}

sop_tool sixsop "$sixsop"
sop_tool msop msop
sop_tool rsop rsop
sop_tool sqop sqop
if command -v age > /dev/null && command -v age-keygen > /dev/null; then
    age-keygen -o "$work/age.key" 2> /dev/null
    recipient=$(age-keygen -y "$work/age.key")
    read -r enc[age] enc_rss[age] < <(measure "$work/plain" /dev/null age -r "$recipient")
    age -r "$recipient" < "$work/plain" > "$work/age.msg"
    read -r dec[age] dec_rss[age] < <(measure "$work/age.msg" /dev/null age -d -i "$work/age.key")
    rm -f "$work/age.msg"
    tools+=(age)
else
    echo "skip age: not installed" >&2
fi

echo "Input: ${size_mib} MiB random, tmpfs -> /dev/null, binary, median of ${runs}, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '| %-7s | %11s | %9s | %11s | %9s | %9s | %9s |\n' tool "encrypt (s)" "vs sixsop" "decrypt (s)" "vs sixsop" "enc MiB" "dec MiB"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' --------- ------------- ----------- ------------- ----------- ----------- -----------
for t in "${tools[@]}"; do
    awk -v t="$t" -v e="${enc[$t]}" -v d="${dec[$t]}" -v e0="${enc[sixsop]}" -v d0="${dec[sixsop]}" \
        -v er="${enc_rss[$t]}" -v dr="${dec_rss[$t]}" \
        'function cell(x, x0) { return x == "fail" ? sprintf("%11s | %9s", "failed", "-") : sprintf("%11.2f | %8.2fx", x, x / x0) }
         BEGIN { printf "| %-7s | %s | %s | %9.1f | %9.1f |\n", t, cell(e, e0), cell(d, d0), er / 1024, dr / 1024 }'
done
