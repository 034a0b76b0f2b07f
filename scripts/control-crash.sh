#!/bin/sh
# control-crash.sh BIN_DIR [ROUNDS] [TMUX_BIN]: does tma crash the tmux server
# it watches? On an isolated server whose windows open, are renamed, selected
# and closed all the time, each round runs a short `tma wait`, and every 20th
# round starts the daemon, stops it and runs a short `tma subscribe`: every one
# of them attaches control-mode clients, which tmux before 3.7 can crash on
# (docs/architecture.md). A round whose server is gone counts a death and
# starts a new server.
#
#   BIN_DIR   the built binaries (bin/ after make build)
#   ROUNDS    200 unless given
#   TMUX_BIN  the tmux to run (tmux unless given; a wrapper from
#             scripts/tmux-versions.sh for another release)
#   MODE=tma    tma's defaults (the default)
#   MODE=poll   the same with `[tmux] control_clients = false`
#   MODE=none   the churn alone, no tma at all (the control: it must show 0)
#   CHURN=windows  windows churning (the default)
#   CHURN=output   panes printing like an agent's spinner instead
#
# Prints a line per death, the new kernel segfault lines of tmux, and one
# summary line; exits 1 when a server died or a new segfault line appeared,
# 2 on a usage or setup error. The kernel log is the machine's: the summary
# says how many of the new lines name one of this run's servers, since
# another tmux crashing meanwhile (another test run) counts too. Everything it starts is its own: a private
# copy of the binaries, HOME and runtime dir under a temporary directory, its
# own server; it ends only those, by pid.
set -u

die() {
	echo "control-crash: $*" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	die "usage: control-crash.sh BIN_DIR [ROUNDS] [TMUX_BIN] (MODE=tma|poll|none, CHURN=windows|output)"
fi
rounds=${2:-200}
mode=${MODE:-tma}
churn=${CHURN:-windows}
case $rounds in '' | *[!0-9]*) die "ROUNDS must be a number, not '$rounds'" ;; esac
case $mode in tma | poll | none) ;; *) die "MODE must be tma, poll or none, not '$mode'" ;; esac
case $churn in windows | output) ;; *) die "CHURN must be windows or output, not '$churn'" ;; esac
[ -x "$1/tma" ] || die "no tma in '$1' (make build puts it in bin/)"
tm=$(command -v "${3:-tmux}") || die "tmux '${3:-tmux}' not found"
case $tm in /*) ;; *) tm=$(pwd)/$tm ;; esac
version=$("$tm" -V) || die "$tm -V failed"
command -v timeout >/dev/null || die "timeout (coreutils) not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tma-stress.XXXXXX") || die "mktemp failed"
bin=$tmp/bin
sock=tma-crash-$$
mkdir -p "$bin" "$tmp/home/.config/tma" "$tmp/run"
chmod 700 "$tmp/run"
cp -a "$1"/. "$bin/" || die "copying $1 failed"
# a process named claude (a copy of sleep): the daemon and wait see an agent pane
cp "$(command -v sleep)" "$tmp/claude"
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_RUNTIME_DIR="$tmp/run" PATH="$bin:$PATH" TMA_TMUX_BIN="$tm"
unset TMUX TMUX_PANE TMA_SOCKET_PATH TMA_CONFIG TMA_MANIFEST_DIR
if [ "$mode" = poll ]; then
	printf '[tmux]\ncontrol_clients = false\n' >"$XDG_CONFIG_HOME/tma/config.toml"
fi

t() {
	"$tm" -L "$sock" -f /dev/null "$@"
}

# segs: the kernel's segfault lines of tmux (a server started through a
# loader, as 3.7c's wrapper does, still names itself "tmux: server").
segs_ok=1
dmesg >/dev/null 2>&1 || segs_ok=0
segs() {
	dmesg 2>/dev/null | grep 'segfault' | grep -E 'tmux|ld-linux'
}
seg0=$(segs | wc -l)

# stop_daemons: SIGTERM to the daemon(s) of this run (the pid in each lock
# file, when that process runs our copy of tma).
stop_daemons() {
	for f in "$XDG_RUNTIME_DIR"/tma/*.lock; do
		[ -f "$f" ] || continue
		read -r pid _ <"$f" || continue
		case $pid in '' | *[!0-9]*) continue ;; esac
		case $(ps -o args= -p "$pid" 2>/dev/null) in "$bin/"*) kill "$pid" 2>/dev/null ;; esac
	done
}

spid=
spids=
start() {
	t new-session -d -s s -x 160 -y 40 "exec $tmp/claude 100000" || return 1
	for _ in 1 2 3 4 5; do t new-window -d -t s: "exec $tmp/claude 100000"; done
	spid=$(t display -p '#{pid}')
	spids="$spids $spid"
	TMA_SOCKET_PATH=$(t display -p '#{socket_path}')
	export TMA_SOCKET_PATH
	if [ "$churn" = output ]; then
		for _ in 1 2 3 4 5; do
			t split-window -d -t s:0 "i=0; while :; do printf '\\r* working %s' \$i; i=\$((i+1)); sleep 0.05; done"
			t select-layout -t s:0 tiled >/dev/null
		done
	fi
}

# cleanup: the churn, the daemon, the server, then whatever still runs a
# binary of our private copy (by pid), and the temporary directory.
cpid=
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if [ -n "$cpid" ]; then
		kill "$cpid" 2>/dev/null
		wait "$cpid" 2>/dev/null
	fi
	stop_daemons
	t kill-server 2>/dev/null
	sleep 0.2
	for p in $(ps -eo pid=,args= | awk -v p="$bin/" 'index($2, p) == 1 { print $1 }'); do
		kill "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

start || die "$tm could not start a server"
if [ "$churn" = windows ]; then
	(
		n=0
		while :; do
			n=$((n + 1))
			w=$(t new-window -d -P -F '#{window_id}' -t s: 'sleep 5' 2>/dev/null) || {
				sleep 0.1
				continue
			}
			t rename-window -t "$w" "w$n" 2>/dev/null
			t select-window -t "$w" 2>/dev/null
			t kill-window -t "$w" 2>/dev/null
		done
	) &
	cpid=$!
fi

began=$(date +%s)
deaths=0
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	if [ "$mode" = none ]; then
		sleep 0.25
	else
		timeout 3 tma wait --pane %0 --until blocked --timeout 0.2 >/dev/null 2>&1
		if [ $((r % 20)) -eq 0 ]; then
			tma daemon --ensure >/dev/null 2>&1
			sleep 0.3
			stop_daemons
			timeout 2 tma subscribe --json >/dev/null 2>&1
		fi
	fi
	if ! timeout 10 "$tm" -L "$sock" has-session -t s 2>/dev/null; then
		deaths=$((deaths + 1))
		# a zombie is dead (nothing may reap a daemonized server at once)
		if ps -o stat= -p "$spid" 2>/dev/null | grep -qv '^Z'; then
			echo "round $r: the server (pid $spid) stopped answering; killing it"
			kill -9 "$spid" 2>/dev/null
		else
			echo "round $r: the server (pid $spid) died"
		fi
		stop_daemons
		start || die "round $r: $tm could not start a new server"
	fi
done
took=$(($(date +%s) - began))

if [ "$segs_ok" = 1 ]; then
	new=$(segs | tail -n +"$((seg0 + 1))")
	nseg=$(printf '%s' "$new" | grep -c .)
	[ -z "$new" ] || printf '%s\n' "$new"
	# which of them name a server of this run: on a machine where other
	# tmux servers run too, the rest may be theirs.
	mine=0
	for p in $spids; do
		mine=$((mine + $(printf '%s\n' "$new" | grep -c "\[$p\]: segfault")))
	done
	segword="new kernel segfault lines $nseg ($mine from this run's servers)"
else
	nseg=0
	segword="kernel log unreadable (dmesg), segfault lines not counted"
fi
echo "control-crash (MODE=$mode, CHURN=$churn): $version, $rounds rounds in ${took}s: server deaths $deaths, $segword"
if [ "$deaths" -eq 0 ] && [ "$nseg" -eq 0 ]; then exit 0; fi
exit 1
