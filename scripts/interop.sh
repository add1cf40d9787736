#!/usr/bin/env bash
# Interoperability checks between sixsop and the other SOP implementations.
#
# Peers (install once per machine, outside CI; each takes minutes to build):
#   cargo install --locked minipgp6-sop          # msop
#   cargo install --locked rsop                  # rsop
#   cargo install --locked sequoia-sop --no-default-features \
#     --features cli,crypto-rust,sequoia-openpgp/allow-experimental-crypto,sequoia-openpgp/allow-variable-time-crypto   # sqop
#
# A peer that is not installed is skipped, and the script says so. Exit status is non-zero if
# any check failed. Usage: scripts/interop.sh [peer...]
#
# The peers' detached and inline signatures are also checked with `sixsopv`, the
# verification-only subset, which must accept what `sixsop` accepts.
set -uo pipefail
cd "$(dirname "$0")/.."
# Peers installed with `cargo install` are found even when ~/.cargo/bin is not on PATH.
PATH="$PATH:$HOME/.cargo/bin"

# SIXSOP=/path/to/sixsop skips the build (e.g. to test a debug build); SIXSOPV defaults to the
# `sixsopv` beside it.
if [ -z "${SIXSOP:-}" ]; then
  cargo build --release -q -p sixpgp-sop --bins || exit 1
  SIXSOP="${CARGO_TARGET_DIR:-$PWD/target}/release/sixsop"
fi
SIX="$SIXSOP"
SIXV="${SIXSOPV:-$(dirname "$SIXSOP")/sixsopv}"
[ -x "$SIXV" ] || { echo "sixsopv not found at $SIXV"; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# SECTIONS="signatures sign-encrypt" runs only those sections (default: all; the sections are
# keys, signatures, lifecycle, sign-encrypt).
SECTIONS=${SECTIONS:-all}
want() { [ "$SECTIONS" = all ] || [[ " $SECTIONS " == *" $1 "* ]]; }

PEERS=("$@")
[ ${#PEERS[@]} -eq 0 ] && PEERS=(msop rsop sqop)

pass=0
fail=0
skip=0
ok() { pass=$((pass + 1)); echo "  ok   $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL $*"; }

# Runs "$@" and records the result under the label in $LABEL.
check() {
  local label=$1
  shift
  if "$@" >"$WORK/last.out" 2>"$WORK/last.err"; then
    ok "$label"
  else
    bad "$label: $(head -c 300 "$WORK/last.err" | tr '\n' ' ')"
  fi
}

same_bytes() { cmp -s "$1" "$2"; }

printf 'interop message\nwith two lines\n' >"$WORK/msg"
head -c 100000 /dev/urandom >"$WORK/big"
# Several chunks (256 KiB each) and a short last one: the encrypted packet's partial lengths.
head -c $((2 * 1024 * 1024 + 1234)) /dev/urandom >"$WORK/huge"

six_profiles=$("$SIX" list-profiles generate-key | cut -d: -f1)

for peer in "${PEERS[@]}"; do
  if ! command -v "$peer" >/dev/null 2>&1; then
    echo "== $peer: not installed, skipped"
    skip=$((skip + 1))
    continue
  fi
  echo "== $peer ($("$peer" version 2>/dev/null))"
  D="$WORK/$peer"
  mkdir -p "$D"

  if want keys; then
  # 1. Keys that sixsop generates, in each profile, are usable by the peer.
  for prof in $six_profiles; do
    k="$D/six-$prof.key"
    c="$D/six-$prof.cert"
    "$SIX" generate-key --profile "$prof" "Six $prof <six-$prof@example.org>" >"$k" || { bad "sixsop generate-key $prof"; continue; }
    "$SIX" extract-cert <"$k" >"$c"
    check "$peer extract-cert of a sixsop $prof key" sh -c "'$peer' extract-cert <'$k' >'$D/peer-of-six-$prof.cert'"
    check "$peer extract-cert equals sixsop extract-cert ($prof)" sh -c \
      "'$SIX' dearmor <'$D/peer-of-six-$prof.cert' >'$D/a.bin' && '$SIX' dearmor <'$c' >'$D/b.bin' && cmp -s '$D/a.bin' '$D/b.bin'"
    if "$SIX" encrypt --help >/dev/null 2>&1 && "$SIX" encrypt "$c" <"$WORK/msg" >/dev/null 2>&1; then
      for f in msg big huge; do
        check "$peer encrypts to a sixsop $prof cert, $peer decrypts ($f)" sh -c \
          "'$peer' encrypt '$c' <'$WORK/$f' >'$D/ct' && '$peer' decrypt '$k' <'$D/ct' | cmp -s - '$WORK/$f'"
        check "$peer encrypts to a sixsop $prof cert, sixsop decrypts ($f)" sh -c \
          "'$peer' encrypt '$c' <'$WORK/$f' >'$D/ct' && '$SIX' decrypt '$k' <'$D/ct' | cmp -s - '$WORK/$f'"
        check "sixsop encrypts to a sixsop $prof cert, $peer decrypts ($f)" sh -c \
          "'$SIX' encrypt '$c' <'$WORK/$f' >'$D/ct' && '$peer' decrypt '$k' <'$D/ct' | cmp -s - '$WORK/$f'"
      done
    else
      check "$peer encrypts to a sixsop $prof cert and decrypts with the sixsop key" sh -c \
        "'$peer' encrypt '$c' <'$WORK/msg' >'$D/ct' && '$peer' decrypt '$k' <'$D/ct' | cmp -s - '$WORK/msg'"
    fi
  done

  # 2. Keys that the peer generates: sixsop reads them and extracts the same certificate.
  for prof in $("$peer" list-profiles generate-key 2>/dev/null | cut -d: -f1); do
    k="$D/peer-$prof.key"
    if ! "$peer" generate-key --profile "$prof" "Peer $prof <peer@example.org>" >"$k" 2>/dev/null; then
      echo "  skip $peer cannot generate profile $prof"
      continue
    fi
    if ! "$SIX" extract-cert --no-armor <"$k" >"$D/a.bin" 2>"$D/err"; then
      if grep -q "version 4" "$D/err"; then
        echo "  skip $peer profile $prof makes v4 keys (out of scope); sixsop refuses them cleanly"
      else
        bad "sixsop extract-cert of a $peer $prof key: $(head -c 200 "$D/err")"
      fi
      continue
    fi
    check "sixsop extract-cert of a $peer $prof key equals $peer's" sh -c \
      "'$peer' extract-cert <'$k' | '$SIX' dearmor >'$D/b.bin' && cmp -s '$D/a.bin' '$D/b.bin'"
    "$peer" extract-cert <"$k" >"$D/peer-$prof.cert" 2>/dev/null
    if "$SIX" encrypt "$D/peer-$prof.cert" <"$WORK/msg" >"$D/ct" 2>/dev/null; then
      check "sixsop encrypts to a $peer $prof cert, $peer decrypts" sh -c \
        "'$peer' decrypt '$k' <'$D/ct' | cmp -s - '$WORK/msg'"
      check "$peer encrypts to its $prof cert, sixsop decrypts" sh -c \
        "'$peer' encrypt '$D/peer-$prof.cert' <'$WORK/msg' >'$D/ct2' && '$SIX' decrypt '$k' <'$D/ct2' | cmp -s - '$WORK/msg'"
    fi
  done

  # 3. Password-encrypted messages, both directions. Peers that default to SEIPDv1 for
  #    password-only messages are asked for their RFC 9580 profile (sixsop reads SEIPDv2 only).
  echo -n "interop password" >"$WORK/pw"
  peer_enc_profile=()
  if "$peer" list-profiles encrypt 2>/dev/null | grep -q '^rfc9580:'; then
    peer_enc_profile=(--profile rfc9580)
  fi
  if echo probe | "$peer" encrypt "${peer_enc_profile[@]}" --with-password "$WORK/pw" >/dev/null 2>&1; then
    "$SIX" encrypt --with-password "$WORK/pw" <"$WORK/msg" >"$D/pct"
    check "sixsop password-encrypts, $peer decrypts" sh -c \
      "'$peer' decrypt --with-password '$WORK/pw' <'$D/pct' | cmp -s - '$WORK/msg'"
    check "$peer password-encrypts (${peer_enc_profile[*]:-default profile}), sixsop decrypts" sh -c \
      "'$peer' encrypt ${peer_enc_profile[*]} --with-password '$WORK/pw' <'$WORK/msg' >'$D/pct2' && '$SIX' decrypt --with-password '$WORK/pw' <'$D/pct2' | cmp -s - '$WORK/msg'"
  else
    echo "  skip $peer does not support password encryption (SKESK)"
  fi
  fi # keys

  # ------------------------------------------------------------------------------------------
  # 4. Signatures: detached, inline (binary, text) and cleartext, made by one side and
  #    verified by the other, with sixsop keys of the default and security profiles and with
  #    the peer's own v6 keys of those profiles.
  # ------------------------------------------------------------------------------------------
  if want signatures; then
    for prof in default security; do
      for owner in six peer; do
        k="$D/sig-$owner-$prof.key"
        c="$D/sig-$owner-$prof.cert"
        if [ "$owner" = six ]; then
          "$SIX" generate-key --profile "$prof" "Six $prof <six@example.org>" >"$k" || { bad "sixsop generate-key $prof"; continue; }
          "$SIX" extract-cert <"$k" >"$c"
        else
          # The peer's name for a v6 key of this profile (some peers' "default" makes v4 keys).
          found=
          for pprof in "$prof" performance rfc9580; do
            [ "$prof" = security ] && [ "$pprof" != security ] && break
            if "$peer" generate-key --profile "$pprof" "Peer $prof <peer@example.org>" >"$k" 2>/dev/null \
              && "$SIX" extract-cert <"$k" >/dev/null 2>&1; then
              found=$pprof
              break
            fi
          done
          if [ -z "$found" ]; then
            echo "  skip $peer makes no v6 key for profile $prof"
            continue
          fi
          "$peer" extract-cert <"$k" >"$c"
        fi
        what="$owner $prof key"
        for f in msg big; do
          [ "$f" = big ] && [ "$owner" = peer ] && continue
          check "sixsop signs, $peer verifies (detached, $what, $f)" sh -c \
            "'$SIX' sign '$k' <'$WORK/$f' >'$D/s.sig' && '$peer' verify '$D/s.sig' '$c' <'$WORK/$f'"
          check "$peer signs, sixsop verifies (detached, $what, $f)" sh -c \
            "'$peer' sign '$k' <'$WORK/$f' >'$D/p.sig' && '$SIX' verify '$D/p.sig' '$c' <'$WORK/$f'"
          check "$peer signs, sixsopv verifies (detached, $what, $f)" sh -c \
            "'$SIXV' verify '$D/p.sig' '$c' <'$WORK/$f'"
          check "$peer signature over other data fails in sixsopv (exit 3; $what, $f)" sh -c \
            "'$SIXV' verify '$D/p.sig' '$c' <'$D/p.sig' >/dev/null 2>&1; test \$? -eq 3"
        done
        check "sixsop signs --as text, $peer verifies (detached, $what)" sh -c \
          "'$SIX' sign --as text '$k' <'$WORK/msg' >'$D/s.sig' && '$peer' verify '$D/s.sig' '$c' <'$WORK/msg'"
        check "$peer signs --as text, sixsop verifies (detached, $what)" sh -c \
          "'$peer' sign --as text '$k' <'$WORK/msg' >'$D/p.sig' && '$SIX' verify '$D/p.sig' '$c' <'$WORK/msg'"
        check "$peer signs --as text, sixsopv verifies (detached, $what)" sh -c \
          "'$SIXV' verify '$D/p.sig' '$c' <'$WORK/msg'"
        check "sixsop detached signature over other data fails in $peer ($what)" sh -c \
          "'$SIX' sign '$k' <'$WORK/msg' >'$D/s.sig' && ! '$peer' verify '$D/s.sig' '$c' <'$WORK/big'"
        for as in binary text clearsigned; do
          rm -f "$D/v" "$D/d.sig" "$D/d2.sig"
          if [ "$as" = clearsigned ]; then
            "$peer" inline-sign --as clearsigned "$k" <"$WORK/msg" >/dev/null 2>&1
            if [ $? -eq 37 ]; then
              echo "  skip $peer does not support the Cleartext Signature Framework ($what)"
              continue
            fi
          fi
          check "sixsop inline-sign --as $as, $peer inline-verify ($what)" sh -c \
            "'$SIX' inline-sign --as $as '$k' <'$WORK/msg' >'$D/s.msg' && '$peer' inline-verify --verifications-out '$D/v' '$c' <'$D/s.msg' | tr -d '\\r' | cmp -s - '$WORK/msg' && test -s '$D/v'"
          rm -f "$D/v"
          check "$peer inline-sign --as $as, sixsop inline-verify ($what)" sh -c \
            "'$peer' inline-sign --as $as '$k' <'$WORK/msg' >'$D/p.msg' && '$SIX' inline-verify --verifications-out '$D/v' '$c' <'$D/p.msg' | cmp -s - '$WORK/msg' && test -s '$D/v'"
          rm -f "$D/v"
          check "$peer inline-sign --as $as, sixsopv inline-verify ($what)" sh -c \
            "'$SIXV' inline-verify --verifications-out '$D/v' '$c' <'$D/p.msg' | cmp -s - '$WORK/msg' && test -s '$D/v'"
          rm -f "$D/v"
          check "$peer inline-detach of a sixsop --as $as message verifies in $peer ($what)" sh -c \
            "'$peer' inline-detach --signatures-out '$D/d.sig' <'$D/s.msg' >'$D/d.txt' && '$peer' verify '$D/d.sig' '$c' <'$D/d.txt'"
          check "sixsop inline-detach of a $peer --as $as message verifies in sixsop ($what)" sh -c \
            "'$SIX' inline-detach --signatures-out '$D/d2.sig' <'$D/p.msg' >'$D/d2.txt' && '$SIX' verify '$D/d2.sig' '$c' <'$D/d2.txt'"
        done
      done
    done
  fi # signatures

  # ------------------------------------------------------------------------------------------
  # 5. Lifecycle: revocation certificates and merged certificates cross in both directions
  #    (the receiving side must refuse to encrypt to a revoked certificate), updated keys,
  #    third-party certifications.
  # ------------------------------------------------------------------------------------------
  if want lifecycle; then
    L="$D/lc"
    mkdir -p "$L"
    # Does the peer refuse to encrypt to its own revoked certificates? (msop 0.0.6 does not.)
    enforces=yes
    if "$peer" generate-key "Probe <probe@example.org>" >"$L/probe.key" 2>/dev/null \
      && "$peer" revoke-key <"$L/probe.key" >"$L/probe.rev" 2>/dev/null \
      && "$peer" encrypt "$L/probe.rev" <"$WORK/msg" >/dev/null 2>&1; then
      enforces=no
      echo "  note $peer encrypts to its own revoked certificates: its refusal checks are skipped"
    fi
    # check_refuses LABEL CERT: the peer must not encrypt to CERT (if it enforces revocations).
    check_refuses() {
      if [ "$enforces" = yes ]; then
        check "$1" sh -c "! '$peer' encrypt '$2' <'$WORK/msg' >/dev/null 2>&1"
      else
        echo "  skip $1"
      fi
    }
    # sixsop's key, revoked by sixsop.
    "$SIX" generate-key "Six <six@example.org>" >"$L/six.key"
    "$SIX" extract-cert <"$L/six.key" >"$L/six.cert"
    "$SIX" revoke-key <"$L/six.key" >"$L/six.rev"
    "$SIX" merge-certs "$L/six.rev" <"$L/six.cert" >"$L/six.merged"
    check "$peer encrypts to the sixsop certificate before revocation" sh -c \
      "'$peer' encrypt '$L/six.cert' <'$WORK/msg' >/dev/null"
    check_refuses "$peer refuses to encrypt to a sixsop revoke-key output" "$L/six.rev"
    check_refuses "$peer refuses to encrypt to a sixsop merge-certs of cert + revocation" "$L/six.merged"
    if "$peer" merge-certs "$L/six.rev" <"$L/six.cert" >"$L/six.peer-merged" 2>/dev/null; then
      check "sixsop refuses to encrypt to $peer's merge of a sixsop revocation (exit 17)" sh -c \
        "'$SIX' encrypt '$L/six.peer-merged' <'$WORK/msg' >/dev/null 2>&1; test \$? -eq 17"
      check_refuses "$peer refuses to encrypt to its merge of a sixsop revocation" "$L/six.peer-merged"
    else
      echo "  skip $peer merge-certs is not supported"
    fi

    # The peer's v6 key, revoked by the peer.
    found=
    for pprof in default performance rfc9580; do
      if "$peer" generate-key --profile "$pprof" "Peer <peer@example.org>" >"$L/peer.key" 2>/dev/null \
        && "$SIX" extract-cert <"$L/peer.key" >/dev/null 2>&1; then
        found=$pprof
        break
      fi
    done
    if [ -n "$found" ]; then
      "$peer" extract-cert <"$L/peer.key" >"$L/peer.cert"
      if "$peer" revoke-key <"$L/peer.key" >"$L/peer.rev" 2>/dev/null; then
        check "sixsop refuses to encrypt to a $peer revoke-key output (exit 17)" sh -c \
          "'$SIX' encrypt '$L/peer.rev' <'$WORK/msg' >/dev/null 2>&1; test \$? -eq 17"
        check "sixsop merge-certs of a $peer cert and its revocation" sh -c \
          "'$SIX' merge-certs '$L/peer.rev' <'$L/peer.cert' >'$L/peer.merged'"
        check_refuses "sixsop merge-certs of a $peer cert and its revocation: $peer refuses to encrypt" "$L/peer.merged"
        check "sixsop merge-certs of a $peer cert and its revocation: sixsop refuses (exit 17)" sh -c \
          "'$SIX' encrypt '$L/peer.merged' <'$WORK/msg' >/dev/null 2>&1; test \$? -eq 17"
      else
        echo "  skip $peer revoke-key is not supported"
      fi
      check "sixsop merge-certs of an unrevoked $peer cert stays usable for $peer" sh -c \
        "'$SIX' merge-certs '$L/peer.cert' <'$L/peer.cert' >'$L/peer.self' && '$peer' encrypt '$L/peer.self' <'$WORK/msg' >'$L/ct' && '$peer' decrypt '$L/peer.key' <'$L/ct' | cmp -s - '$WORK/msg'"
    else
      echo "  skip $peer makes no v6 key sixsop reads"
    fi

    # sixsop update-key adds an ML-KEM-768+X25519 subkey to a classic key.
    "$SIX" generate-key "Up <up@example.org>" >"$L/up.key"
    "$SIX" update-key <"$L/up.key" >"$L/up2.key"
    "$SIX" extract-cert <"$L/up2.key" >"$L/up2.cert"
    check "$peer encrypts to a sixsop-updated (PQC subkey added) cert, sixsop decrypts" sh -c \
      "'$peer' encrypt '$L/up2.cert' <'$WORK/msg' >'$L/ct' && '$SIX' decrypt '$L/up2.key' <'$L/ct' | cmp -s - '$WORK/msg'"
    check "$peer reads a sixsop-updated key and decrypts what sixsop encrypts" sh -c \
      "'$SIX' encrypt '$L/up2.cert' <'$WORK/msg' >'$L/ct' && '$peer' decrypt '$L/up2.key' <'$L/ct' | cmp -s - '$WORK/msg'"

    # Third-party certifications, each way.
    "$SIX" generate-key "Target <target@example.org>" >"$L/t.key"
    "$SIX" extract-cert <"$L/t.key" >"$L/t.cert"
    "$SIX" certify-userid --userid "Target <target@example.org>" "$L/six.key" <"$L/t.cert" >"$L/t.by-six" 2>/dev/null
    if "$peer" validate-userid "Target <target@example.org>" "$L/six.cert" <"$L/t.cert" >/dev/null 2>&1; then
      bad "$peer validates an uncertified user ID (cannot test certifications)"
    elif [ -n "$found" ] && "$peer" certify-userid --userid "Target <target@example.org>" "$L/peer.key" <"$L/t.cert" >"$L/t.by-peer" 2>/dev/null; then
      check "$peer validates a sixsop certification" sh -c \
        "'$peer' validate-userid 'Target <target@example.org>' '$L/six.cert' <'$L/t.by-six'"
      check "sixsop validates a $peer certification" sh -c \
        "'$SIX' validate-userid 'Target <target@example.org>' '$L/peer.cert' <'$L/t.by-peer'"
      check "sixsop validates a $peer certification by addr-spec" sh -c \
        "'$SIX' validate-userid --addr-spec-only target@example.org '$L/peer.cert' <'$L/t.by-peer'"
    else
      echo "  skip $peer certify-userid/validate-userid are not supported"
    fi
  fi # lifecycle

  # ------------------------------------------------------------------------------------------
  # 6. Sign+encrypt: `encrypt --sign-with` by one side, `decrypt --verify-with
  #    --verifications-out` by the other, binary and text, with a key pair of the default and
  #    security profiles on each side (the peer's own v6 keys: rsop performance/security,
  #    sqop rfc9580/security, msop default/security).
  # ------------------------------------------------------------------------------------------
  if want sign-encrypt; then
    peer_enc_profile=()
    if "$peer" list-profiles encrypt 2>/dev/null | grep -q '^rfc9580:'; then
      peer_enc_profile=(--profile rfc9580)
    fi
    for prof in default security; do
      sk="$D/se-six-$prof.key"
      sc="$D/se-six-$prof.cert"
      pk="$D/se-peer-$prof.key"
      pc="$D/se-peer-$prof.cert"
      "$SIX" generate-key --profile "$prof" "Six $prof <six@example.org>" >"$sk" || { bad "sixsop generate-key $prof"; continue; }
      "$SIX" extract-cert <"$sk" >"$sc"
      found=
      for pprof in "$prof" performance rfc9580; do
        [ "$prof" = security ] && [ "$pprof" != security ] && break
        if "$peer" generate-key --profile "$pprof" "Peer $prof <peer@example.org>" >"$pk" 2>/dev/null \
          && "$SIX" extract-cert <"$pk" >/dev/null 2>&1; then
          found=$pprof
          break
        fi
      done
      if [ -z "$found" ]; then
        echo "  skip $peer makes no v6 key for profile $prof (sign+encrypt)"
        continue
      fi
      "$peer" extract-cert <"$pk" >"$pc"
      what="$prof: sixsop $prof key, $peer $found key"
      for as in binary text; do
        rm -f "$D/sev"
        check "sixsop encrypt --sign-with --as $as, $peer decrypt --verify-with ($what)" sh -c \
          "'$SIX' encrypt --as $as --sign-with '$sk' '$pc' <'$WORK/msg' >'$D/se.six' && '$peer' decrypt --verify-with '$sc' --verifications-out '$D/sev' '$pk' <'$D/se.six' | cmp -s - '$WORK/msg' && test -s '$D/sev'"
        rm -f "$D/sev"
        check "$peer encrypt --sign-with --as $as, sixsop decrypt --verify-with ($what)" sh -c \
          "'$peer' encrypt ${peer_enc_profile[*]} --as $as --sign-with '$pk' '$sc' <'$WORK/msg' >'$D/se.peer' && '$SIX' decrypt --verify-with '$pc' --verifications-out '$D/sev' '$sk' <'$D/se.peer' | cmp -s - '$WORK/msg' && test -s '$D/sev'"
      done
      rm -f "$D/sev"
      check "sixsop sign+encrypt of 100 kB, $peer decrypts and verifies ($what)" sh -c \
        "'$SIX' encrypt --sign-with '$sk' '$pc' <'$WORK/big' >'$D/se.six' && '$peer' decrypt --verify-with '$sc' --verifications-out '$D/sev' '$pk' <'$D/se.six' | cmp -s - '$WORK/big' && test -s '$D/sev'"
      # The wrong verifying certificate: the message decrypts, no verification is reported.
      rm -f "$D/sev"
      check "$peer sign+encrypt, sixsop decrypt --verify-with the wrong cert reports none ($what)" sh -c \
        "'$peer' encrypt ${peer_enc_profile[*]} --sign-with '$pk' '$sc' <'$WORK/msg' >'$D/se.peer' && '$SIX' decrypt --verify-with '$sc' --verifications-out '$D/sev' '$sk' <'$D/se.peer' | cmp -s - '$WORK/msg' && test -f '$D/sev' && ! test -s '$D/sev'"
    done
  fi # sign-encrypt
done

echo
echo "$pass passed, $fail failed, $skip peers skipped"
[ "$fail" -eq 0 ]
