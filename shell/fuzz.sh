#!/bin/sh
# fuzz.sh: run every native fuzz target (a func FuzzXxx in a lib/ test file)
# for FUZZTIME each, one after another; make fuzz calls it. A crasher is
# written by go test under the package's testdata/fuzz/<target>/, where it
# stays as a regression case that plain go test runs. docs/fuzz.md.
#
#   FUZZTIME       how long each target runs (default 30s; go test's -fuzztime)
#   FUZZPARALLEL   fuzzing workers per target (default: go test's, GOMAXPROCS)
#   FUZZ           only the targets whose name matches this grep -E pattern
set -u
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
log=$(mktemp)
list=$(mktemp)
trap 'rm -f "$log" "$list"' EXIT
# One "<package dir> <target>" line per target, in file order.
grep -r --include='*_test.go' '^func Fuzz' lib | sort |
	sed -n 's|^\(.*\)/[^/]*:func \(Fuzz[A-Za-z0-9_]*\)(.*|./\1 \2|p' >"$list"
failed=''
n=0
while read -r dir name; do
	if [ -n "${FUZZ-}" ] && ! printf '%s\n' "$name" | grep -Eq -- "$FUZZ"; then
		continue
	fi
	n=$((n + 1))
	printf 'fuzz: %s %s for %s\n' "$dir" "$name" "$FUZZTIME"
	# A new input that widens coverage is minimized before fuzzing goes
	# on; the default minute of that is most of a short run.
	if $GO test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 10s \
		${FUZZPARALLEL:+-parallel "$FUZZPARALLEL"} "$dir" >"$log" 2>&1 </dev/null; then
		grep '^fuzz: elapsed' "$log" | tail -n 1
	else
		cat "$log"
		failed="$failed $dir:$name"
	fi
done <"$list"
if [ "$n" -eq 0 ]; then
	echo "fuzz: no target matched" >&2
	exit 2
fi
if [ -n "$failed" ]; then
	printf 'fuzz: failed:%s (each crasher is under its package'\''s testdata/fuzz/)\n' "$failed" >&2
	exit 1
fi
printf 'fuzz: %d targets, %s each, no crasher\n' "$n" "$FUZZTIME"
