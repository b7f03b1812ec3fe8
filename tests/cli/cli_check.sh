#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cli_check.sh: run the minifloat CLI once and check exit status, stdout and stderr.
# usage: cli_check.sh RC STDOUT STDERR_REGEX BIN ARGS...
#   RC            expected exit status
#   STDOUT        exact expected stdout, lines separated by the two characters \n;
#                 '<any>' skips the check, '<empty>' requires no output
#   STDERR_REGEX  for RC != 0: stderr must be exactly one line "minifloat: error: ..." matching
#                 this extended regex; for RC == 0 stderr must be empty ('<any>' skips)
set -u
rc_want=$1 out_want=$2 err_re=$3
shift 3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
rc=$?
cmd="$*"
fail() { echo "FAIL: $1"; echo "command: $cmd"; echo "--- stdout:"; head -c 2000 "$out"; echo "--- stderr:"; cat "$err"; exit 1; }
[ "$rc" -eq "$rc_want" ] || fail "exit status $rc, expected $rc_want"
case "$out_want" in
  '<any>') ;;
  '<empty>') [ ! -s "$out" ] || fail "expected no stdout" ;;
  *) diff <(printf '%b\n' "$out_want") "$out" >/dev/null || { diff <(printf '%b\n' "$out_want") "$out" | head -20; fail "stdout differs (< expected, > got)"; } ;;
esac
if [ "$rc_want" -ne 0 ]; then
  [ "$(wc -l <"$err")" -eq 1 ] || fail "stderr must be exactly one line"
  grep -q '^minifloat: error: ' "$err" || fail "stderr must start with 'minifloat: error: '"
  grep -Eq -- "$err_re" "$err" || fail "stderr does not match /$err_re/"
elif [ "$err_re" != '<any>' ]; then
  [ ! -s "$err" ] || fail "expected no stderr"
fi
echo "ok: $*"
