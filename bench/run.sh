#!/bin/sh
# bench/run.sh [RUNS]: run `make bench`'s benchmarks RUNS times (3 by
# default) on this machine, keep every output in a fresh temporary
# directory, and print each run's summary tables for comparing medians
# across runs. The benchmarks build their own binaries from the tree.
set -eu

cd "$(dirname -- "$0")/.."
runs=${1:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/tma-bench.XXXXXX")
tmux=${TMA_TMUX_BIN:-tmux}
printf '%s; %s vCPU; %s; outputs in %s\n' "$("$tmux" -V)" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)" "$out"
status=0
i=1
while [ "$i" -le "$runs" ]; do
	f=$out/run-$i.txt
	printf '\n# run %s (loadavg before: %s)\n' "$i" "$(cut -d' ' -f1-3 /proc/loadavg)"
	go test -count=1 -run '^$' -bench . -benchtime 20x ./bench/ >"$f" 2>&1 || status=1
	# The summaries: each from its "## " heading to the next benchmark line,
	# the push latency lines, and every failure with its messages.
	awk '/^--- FAIL/{f=1; print; next} f && /^    /{print; next} {f=0}
		/^## /{p=1} /^(Benchmark|PASS|ok|FAIL|goos|goarch|pkg|cpu)/{p=0}
		/^push latency/{print; next} p' "$f"
	i=$((i + 1))
done
exit "$status"
