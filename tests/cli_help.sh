#!/usr/bin/env bash
# `loam --help` and `loam CMD --help` come from one table (src/app/cli_table.c): README.md's command
# block is exactly `loam --help`'s usage lines; each command's --help starts with the same usage
# line(s) and lists every option its synopsis names.
#   usage: cli_help.sh <path-to-loam> <source-dir>
set -u
loam="$1"
src="$2"
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$loam" --help >"$tmp/help" || fail "loam --help exited with $?"
# The usage lines: after "usage:", indented by two spaces.
sed -n '/^usage:$/,/^[^ ]/p' "$tmp/help" | grep '^  loam ' | sed 's/^  //' >"$tmp/usage"
[ -s "$tmp/usage" ] || fail "loam --help printed no usage lines"
# README.md: the first ```sh block after the heading "## The `loam` command".
awk '/^## The `loam` command/ {h = 1; next} h && /^```sh$/ {b = 1; next} b && /^```$/ {exit} b {print}' \
  "$src/README.md" >"$tmp/readme"
if ! diff -u "$tmp/readme" "$tmp/usage" >"$tmp/diff"; then
  fail "README.md's command block differs from loam --help (paste the + lines into README.md):
$(cat "$tmp/diff")"
fi

# Each usage line's command answers --help with that same line and names each synopsis option.
while read -r line; do
  set -- $line
  [ "$2" = "help" ] && continue
  # a group's --help (`loam bench --help`) lists its commands without options: then the name has two words
  cmd="$2"
  "$loam" $cmd --help 2>/dev/null | grep -q '^options' || cmd="$2 $3"
  "$loam" $cmd --help >"$tmp/cmd" 2>"$tmp/err" || fail "loam $cmd --help exited with status $?: $(cat "$tmp/err")"
  grep -qxF "  $line" "$tmp/cmd" || fail "loam $cmd --help does not show the usage line '$line'"
  for opt in $(grep -o -- '--[a-z][a-z-]*' <<<"$line" | sort -u); do
    grep -qE -- "^  $opt( |$)" "$tmp/cmd" || fail "loam $cmd --help does not describe $opt (named in '$line')"
  done
done <"$tmp/usage"

# Unknown commands and subcommands: one line, status 2.
for args in "frobnicate" "bench frobnicate"; do
  "$loam" $args >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "loam $args: exit status $rc, want 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "loam $args: want one error line, got: $(cat "$tmp/err")"
done

if [ "$failures" -ne 0 ]; then
  echo "cli_help: $failures failure(s)" >&2
  exit 1
fi
echo "cli_help: all checks passed"
