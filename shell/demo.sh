#!/bin/sh
# make demo: a throwaway tmux server with simulated agents in every state.
#
# It starts `tmux -L tma-demo-<pid>` (never your own server) with two
# sessions of fake agents (lib/testkit/fakeagent built under each agent's
# process name, painting the screens in shell/demo/), drives `tma` cycles
# until every state is on show, then either attaches you to it (stdin and
# stdout a terminal) or prints `tma ls` / `tma status` and exits. The server,
# its fake agents and the temp dir go away at the end, unless
# TMA_DEMO_KEEP=1.
#
# Environment: TMA_DEMO_KEEP=1 keeps the server running; TMA_DEMO_TIMEOUT
# (seconds, default 30) bounds every wait; TMA_TMUX_BIN and GO as elsewhere.
set -u

here=$(cd -- "$(dirname -- "$0")" && pwd) || exit 1
root=$(dirname -- "$here")
screens=$here/demo
manifests=$root/manifests/agents
tma_bin=$root/bin/tma
tmux_bin=${TMA_TMUX_BIN:-tmux}
go_bin=${GO:-go}
keep=${TMA_DEMO_KEEP:-}
timeout=${TMA_DEMO_TIMEOUT:-30}
sock=tma-demo-$$

die() {
	printf 'demo: error: %s\n' "$*" >&2
	exit 1
}
say() { printf 'demo: %s\n' "$*" >&2; }

# q quotes one word for sh.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# tq escapes a string for inside a double-quoted tmux config word: no
# escapes, no $VAR expansion, # doubled (the status line expands formats).
tq() { printf '%s' "$1" | sed 's/[\\"$]/\\&/g; s/#/##/g'; }

command -v "$tmux_bin" >/dev/null 2>&1 || die "tmux ($tmux_bin) not found"
[ -x "$tma_bin" ] || die "$tma_bin is not built: run make build (or make demo)"
[ -d "$manifests" ] || die "no manifests in $manifests"
# The unknown pane runs a pager over an agent: less where it is installed,
# else the file shown and cat holding the terminal all the same.
pager='less'
command -v less >/dev/null 2>&1 || pager='cat'

# The demo talks to its own server only, with its own config, and must not
# fire the person's notification commands.
unset TMUX TMUX_PANE TMA_SOCKET_PATH TMA_CONFIG
TMA_NOTIFY_CMD=
export TMA_NOTIFY_CMD

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tma-demo.XXXXXX") || die "mktemp failed"
mkdir "$tmp/agents" "$tmp/screens" "$tmp/pids" "$tmp/src" "$tmp/config" || die "cannot populate $tmp"
# Only the bundled actions: the person's own (~/.config/tma/actions) stay out.
TMA_CONFIG_DIR=$tmp/config
export TMA_CONFIG_DIR
cfg=$tmp/config.toml
conf=$tmp/tmux.conf

# stop.sh ends everything this demo started: the fake agents (by pid: they
# ignore SIGHUP, so killing the server alone would orphan them), the server
# and the temp dir.
cat >"$tmp/stop.sh" <<EOF
#!/bin/sh
# Stops the tma demo on tmux -L $sock and removes $tmp.
tmux=$(q "$tmux_bin")
sock=$(q "$sock")
dir=$(q "$tmp")
for pid in \$("\$tmux" -L "\$sock" list-panes -a -F '#{pane_pid}' 2>/dev/null) \$(cat "\$dir"/pids/* 2>/dev/null); do
	kill "\$pid" 2>/dev/null
done
"\$tmux" -L "\$sock" kill-server 2>/dev/null
# tmux leaves its socket file behind.
if [ -f "\$dir/socket" ]; then
	s=\$(cat "\$dir/socket")
	[ -S "\$s" ] && rm -f "\$s"
fi
rm -rf "\$dir"
exit 0
EOF

started=0
# finish runs from the EXIT trap.
# shellcheck disable=SC2317
finish() {
	rc=$?
	trap - EXIT INT TERM HUP
	if [ -n "$keep" ] && [ "$started" = 1 ] && [ "$rc" -eq 0 ]; then
		say "kept running (TMA_DEMO_KEEP): attach with: $tmux_bin -L $sock attach"
		say "stop it with: sh $tmp/stop.sh"
		exit 0
	fi
	sh "$tmp/stop.sh"
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

t() { "$tmux_bin" -L "$sock" "$@"; }
tma() { "$tma_bin" -L "$sock" --config "$cfg" --manifest-dir "$manifests" "$@"; }

now() { date +%s; }
nap() { sleep 0.2 2>/dev/null || sleep 1; }

# --- the fake agents -------------------------------------------------------
say "building the fake agent"
(cd "$root" && "$go_bin" build -o "$tmp/fakeagent" ./lib/testkit/fakeagent) || die "go build ./lib/testkit/fakeagent failed"
for a in claude codex gemini opencode pi; do
	cp "$tmp/fakeagent" "$tmp/agents/$a" || die "cannot copy the fake agent"
done
cp "$screens"/*.txt "$tmp/screens/" || die "cannot copy the demo screens"

# Two small repos, so the rows carry repo and branch labels.
for r in api:fix/token-refresh web:main; do
	mkdir "$tmp/src/${r%%:*}"
	if command -v git >/dev/null 2>&1; then
		git init -q "$tmp/src/${r%%:*}" >/dev/null 2>&1 &&
			git -C "$tmp/src/${r%%:*}" symbolic-ref HEAD "refs/heads/${r#*:}" >/dev/null 2>&1 &&
			git -C "$tmp/src/${r%%:*}" -c user.name=tma-demo -c user.email=tma-demo@localhost \
				-c commit.gpgsign=false commit -q --allow-empty --no-verify -m demo >/dev/null 2>&1
	fi
done
cp "$screens/REVIEW.md" "$tmp/src/web/" || die "cannot copy REVIEW.md"

# --- config and server -----------------------------------------------------
printf '# tma demo: every setting at its default.\n' >"$cfg"

status_cmd="$(q "$tma_bin") -L $(q "$sock") --config $(q "$cfg") --manifest-dir $(q "$manifests") status"
summary='#{?@agent_summary, #{@agent_summary},}'
cat >"$conf" <<EOF
# tma demo (shell/demo.sh): a throwaway server, gone when the demo ends.
set -g default-size 100x30
set -g base-index 1
set -g renumber-windows off
set -g status-interval 1
set -g status-style "bg=colour236,fg=colour250"
set -g status-left-length 20
set -g status-left "#[bold] #S #[nobold]"
set -g status-right-length 80
set -g status-right "#($(tq "$status_cmd"))  tma demo "
set -g window-status-format '#I:#W$summary'
set -g window-status-current-format '#[reverse] #I:#W$summary #[noreverse]'
EOF

# The keys, exactly as `tma install-keys` writes them (prefix a the picker,
# G watch, j/g/b/h the jumps, A the action menu), into the demo's own config
# dir; no daemon line (the demo runs none). The bindings run bin/tma by its
# absolute path; the server inherits this script's environment, so the demo
# config is the one they read. The picker runs the
# fzf make deps put beside the binaries.
PATH=$root/bin:$PATH
TMA_CONFIG=$cfg
export PATH TMA_CONFIG
"$tma_bin" install-keys --yes --no-daemon --config-dir "$tmp/config" --conf "$tmp/keys-source.conf" >/dev/null ||
	die "tma install-keys failed"
printf 'source-file "%s"\n' "$(tq "$tmp/config/tmux.conf")" >>"$conf"

say "starting tmux -L $sock"
# The first window is the one you land in: a shell in the repo.
hint="tma demo: a throwaway tmux server (-L $sock) with fake agents.
  api:auth   claude    blocked on a permission prompt
  api:tests  codex     working
  api:docs   gemini    done (went working -> idle; attention raised)
  web:ui     opencode  idle
  web:e2e    pi        working
  web:review claude    unknown ($pager(1) is in the foreground over it)
The status line runs tma status every second; each window name carries its
@agent_summary. Try: bin/tma ls, bin/tma status --format plain,
bin/tma debug explain %1 (typing in a done pane clears its attention).
The keys are bound as tma install-keys binds them: C-b a the picker (fzf;
Enter jumps, Tab the action menu), C-b g the longest-blocked agent, C-b b
back, C-b j the next agent wanting attention, C-b G a watch dashboard.
Answer the blocked one: C-b A in api:auth opens the action menu, or
bin/tma act --list --pane %1, bin/tma act approve --pane %1 --dry-run
(the simulated agents paint screens; they do not react to keys).
Detach (C-b d) to end the demo."
# The $1 and ${SHELL} are the inner sh's.
# shellcheck disable=SC2016
t -f "$conf" new-session -d -s api -n tma -c "$root" -e "TMA_CONFIG=$cfg" \
	sh -c 'printf "%s\n\n" "$1"; exec "${SHELL:-/bin/sh}"' sh "$hint" ||
	die "cannot start tmux -L $sock"
started=1
t display -p '#{socket_path}' >"$tmp/socket" 2>/dev/null

# agent SESSION NAME AGENT SCREEN: a window running a fake agent; prints the pane.
agent() {
	t new-window -d -P -F '#{pane_id}' -t "$1:" -n "$2" -c "$tmp/src/$1" \
		"$tmp/agents/$3" "$tmp/screens/$4" || die "cannot open $1:$2"
}
blocked=$(agent api auth claude claude-blocked.txt) || exit 1
working=$(agent api tests codex codex-working.txt) || exit 1
cp "$tmp/screens/gemini-working.txt" "$tmp/screens/gemini.txt" || exit 1
done_=$(agent api docs gemini gemini.txt) || exit 1
t new-session -d -s web -n ui -c "$tmp/src/web" "$tmp/agents/opencode" "$tmp/screens/opencode-idle.txt" ||
	die "cannot start session web"
idle=$(t display -p -t web:ui '#{pane_id}') || exit 1
working2=$(agent web e2e pi pi-working.txt) || exit 1
# unknown: claude alive in the pane, but in a background job while the pager
# holds the terminal, as after ^Z and `less REVIEW.md`.
# shellcheck disable=SC2016
unknown=$(t new-window -d -P -F '#{pane_id}' -t web: -n review -c "$tmp/src/web" \
	sh -c 'set -m; "$1" "$2" >/dev/null 2>&1 & echo $! >"$3"; if [ "$4" = less ]; then exec less REVIEW.md; fi; cat REVIEW.md; exec cat' sh \
	"$tmp/agents/claude" "$tmp/screens/claude-idle.txt" "$tmp/pids/review-claude" "$pager") ||
	die "cannot open web:review"

# --- drive cycles ----------------------------------------------------------
last=""
# await WHAT PANE=STATE...: run tma cycles until each pane's row shows STATE
# (state, plus /1 when attention is set), or fail after the timeout.
await() {
	what=$1
	shift
	end=$(($(now) + timeout))
	while :; do
		last=$(tma ls 2>&1)
		ok=1
		for spec in "$@"; do
			got=$(printf '%s\n' "$last" | awk -F '\t' -v p="${spec%%=*}" '$1 == p { print $3 ($8 == "1" ? "/1" : "") }')
			[ "$got" = "${spec#*=}" ] || ok=0
		done
		[ "$ok" = 1 ] && return 0
		if [ "$(now)" -ge "$end" ]; then
			printf 'demo: error: timed out after %ss waiting for %s\n  wanted: %s\n  last tma ls:\n%s\n' \
				"$timeout" "$what" "$*" "$last" >&2
			exit 1
		fi
		nap
	done
}

# painted PANE TEXT: wait until the pane shows TEXT.
painted() {
	end=$(($(now) + timeout))
	until t capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2"; do
		[ "$(now)" -ge "$end" ] && die "timed out waiting for $1 to show: $2"
		nap
	done
}

painted "$blocked" 'Esc to cancel'
painted "$working" 'context left'
painted "$done_" 'gemini-2.5-pro'
painted "$idle" 'ctrl+p commands'
painted "$working2" '3.1%/200k'
painted "$unknown" 'Checkout flow review'

say "waiting for tma to stamp every agent"
await "the first verdicts" "$blocked=blocked/1" "$working=working" "$done_=working" \
	"$idle=idle" "$working2=working" "$unknown=unknown"

# done: the working gemini finishes. Its idle screen must outlast the dwell
# (3 s) before tma calls it idle, and working -> idle raises attention.
say "gemini finishes its turn (idle after the dwell: done)"
cp "$tmp/screens/gemini-idle.txt" "$tmp/screens/gemini.txt"
painted "$done_" 'marked deprecated'
await "gemini to go working -> idle with attention (done)" "$done_=idle/1"
await "every state at once" "$blocked=blocked/1" "$working=working" "$done_=idle/1" \
	"$idle=idle" "$working2=working" "$unknown=unknown"

# --- show it ---------------------------------------------------------------
if [ -t 0 ] && [ -t 1 ]; then
	[ -n "$keep" ] || say "detach (C-b d) to end the demo; TMA_DEMO_KEEP=1 make demo keeps it running"
	t select-window -t api:tma
	t attach -t api
	exit 0
fi

shown() {
	printf '$ tma %s\n' "$*"
	tma "$@" || exit 1
	printf '\n'
}
printf 'tma demo on tmux -L %s (tma = bin/tma -L %s --config <empty> --manifest-dir manifests/agents)\n\n' "$sock" "$sock"
printf '$ tma ls   (pane agent state detail since locator title attention muted repo branch worktree)\n'
tma ls || exit 1
printf '\n'
shown status
shown status --format plain
printf '$ tmux list-keys   (the tma bindings, as tma install-keys writes them)\n'
t list-keys -T prefix | grep -E '[ "/]tma( |"|$)' || die "the tma keys are not bound"
printf '\n'
# The picker (prefix a) runs this fzf.
printf '$ tma doctor | grep fzf\n'
tma doctor 2>&1 | grep '^fzf:' || die "tma doctor names no fzf"
printf '\n'

shown ls --json
# Answering the blocked claude: what can fire there, what approve would
# send, then the fire itself (the simulated agent does not react to it).
shown act --list --pane "$blocked"
shown act approve --pane "$blocked" --dry-run
shown act approve --pane "$blocked" --json
[ -n "$keep" ] || say "TMA_DEMO_KEEP=1 make demo keeps the demo server running"
exit 0
