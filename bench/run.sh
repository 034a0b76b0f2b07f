#!/bin/sh
# bench/run.sh [RUNS]: build, then run the cycle benchmark RUNS times (3 by
# default) on this machine, keep every output in a fresh temporary directory,
# and print each run's summary table for comparing medians across runs.
set -eu

cd "$(dirname -- "$0")/.."
runs=${1:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/tma-bench.XXXXXX")
make build >/dev/null
tmux=${TMA_TMUX_BIN:-tmux}
printf '%s; %s vCPU; %s; outputs in %s\n' "$("$tmux" -V)" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)" "$out"
i=1
while [ "$i" -le "$runs" ]; do
	f=$out/run-$i.txt
	printf '\n## run %s (loadavg before: %s)\n' "$i" "$(cut -d' ' -f1-3 /proc/loadavg)"
	go test -count=1 -run '^$' -bench . -benchtime 20x ./bench/ >"$f" 2>&1 || {
		cat "$f"
		exit 1
	}
	sed -n '/^tmux /,$p' "$f" | grep -v -e '^PASS' -e '^ok'
	i=$((i + 1))
done
