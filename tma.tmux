#!/bin/sh
# tma as a TPM plugin: `set -g @plugin 'tmaproject/tma'`, then prefix I.
# TPM runs this file with run-shell when tmux loads its config. It finds
# tma (PATH first, then this plugin's own bin/), builds it there with Go
# when there is none (in the background: tmux starts meanwhile, and the
# keys bind when the build is done), binds the keys from the @tma-* options
# and starts the daemon. Options (set them before the TPM line):
#   @tma-key-picker, @tma-key-watch, @tma-key-attention, @tma-key-blocked,
#   @tma-key-back, @tma-key-home, @tma-key-menu   a prefix key, or "none"
#   @tma-mouse on     the status-line click bindings
#   @tma-daemon off   no daemon
# What it did last is in the @tma-plugin-status option. See docs/keys.md.

dir=$(cd "$(dirname "$0")" && pwd -P) || exit 0

# The server that ran this file: $TMUX names its socket in run-shell.
sock=${TMUX%%,*}
t() {
	if [ -n "$sock" ]; then
		tmux -S "$sock" "$@"
	else
		tmux "$@"
	fi
}

# tma, on this server.
tmac() {
	if [ -n "$sock" ]; then
		"$tma" --socket-path "$sock" "$@"
	else
		"$tma" "$@"
	fi
}

say() {
	t set-option -gq @tma-plugin-status "$1"
	t display-message "tma: $1"
}

find_tma() {
	p=$(command -v tma 2>/dev/null)
	case $p in
	/*)
		printf '%s\n' "$p"
		return 0
		;;
	esac
	if [ -x "$dir/bin/tma" ]; then
		printf '%s\n' "$dir/bin/tma"
		return 0
	fi
	return 1
}

# One build at a time: the lock holds the builder's pid, and a lock whose
# builder is gone (tmux killed mid-build) is taken over.
build() {
	lock=$dir/.tma-build
	if ! mkdir "$lock" 2>/dev/null; then
		pid=$(cat "$lock/pid" 2>/dev/null)
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			say "tma is still being built in $dir (log: $dir/build.log); the keys bind when it is done"
			return 0
		fi
		rm -rf "$lock"
		mkdir "$lock" 2>/dev/null || return 0
	fi
	say "building tma with Go into $dir/bin (a minute or two; log: $dir/build.log); tmux works meanwhile, and the keys bind and the daemon starts when it is done"
	(
		if make -C "$dir" install PREFIX="$dir" >"$dir/build.log" 2>&1; then
			rm -rf "$lock"
			TMA_PLUGIN_BUILT=1 "$dir/tma.tmux"
		else
			rm -rf "$lock"
			say "building tma failed: see $dir/build.log"
		fi
	) </dev/null >/dev/null 2>&1 &
	echo "$!" >"$lock/pid"
}

shadowed=
bind_keys() {
	tmp=$(mktemp "${TMPDIR:-/tmp}/tma-keys.XXXXXX") || return 1
	if tmac install-keys --print >"$tmp" 2>"$tmp.err"; then
		t source-file "$tmp"
		rc=$?
		# The user's own bindings these replaced, named as install-keys'
		# diff names them.
		shadowed=$(awk 'NR > 1 { printf "; " } { printf "%s", $0 }' "$tmp.err")
	else
		say "$(head -n 1 "$tmp.err")"
		rc=1
	fi
	rm -f "$tmp" "$tmp.err"
	return "$rc"
}

if ! tma=$(find_tma); then
	if [ -n "$TMA_PLUGIN_BUILT" ]; then
		say "the build left no tma in $dir/bin: see $dir/build.log"
	elif command -v go >/dev/null 2>&1 && command -v make >/dev/null 2>&1; then
		build
	else
		say "tma is not installed and there is no Go to build it: run  curl -fsSL https://raw.githubusercontent.com/tmaproject/tma/main/scripts/install.sh | sh  then prefix I"
	fi
	exit 0
fi

bind_keys || exit 0
if [ "$(t show-option -gqv @tma-daemon)" != off ]; then
	tmac daemon --ensure >/dev/null 2>&1
fi
if [ -n "$shadowed" ]; then
	say "keys bound from $tma; $shadowed (@tma-key-<name> moves a key)"
else
	t set-option -gq @tma-plugin-status "keys bound from $tma"
fi
exit 0
