#!/bin/sh
# make deps: everything `make test` needs beyond Go, set up in one place
# (.ci/run calls it too); `deps.sh demo` (make demo) sets up only what the
# demo needs: tmux and the fzf below, never the test toolchain.
#
# - fzf (the picker executes it, never links it) is built from the Go module
#   proxy into bin/fzf, beside the tma binaries, where the picker looks for it
#   after $PATH. A user's own fzf 0.65 or newer on $PATH is used as it is.
# - Debian tools the tests run (tmux, shellcheck, dash, git, script, ps, node,
#   curl for the notify recipes, less for the demo's unknown pane, zsh and fish
#   for the completion scripts' syntax, sshd and ssh for tma serve's tests over
#   a private OpenSSH server on 127.0.0.1, chromium for the web face's page
#   test, run headless)
#   are installed with apt-get when running as root; otherwise the missing
#   ones are named in one line with the exact install command, exit 2.
#
# Nothing is done when nothing is missing, so make test can run it every
# time. Environment: GO (the go binary), TMA_DEPS_BIN (where fzf goes,
# default bin/ beside this script's repo), TMA_DEPS_QUIET=1 (no "ok" line).
# The argument is the target: test (the default) or demo.
set -u

target=${1:-test}
case $target in
test | demo) ;;
*)
	printf 'deps: error: unknown target %s (test or demo)\n' "$target" >&2
	exit 2
	;;
esac

here=$(cd -- "$(dirname -- "$0")" && pwd) || exit 1
root=$(dirname -- "$here")
go_bin=${GO:-go}
bindir=${TMA_DEPS_BIN:-$root/bin}
fzf_mod=${TMA_FZF_MODULE:-github.com/junegunn/fzf@v0.65.2}

say() { printf 'deps: %s\n' "$*" >&2; }

# fzf_ok FZF: FZF runs and is 0.65 or newer (what lib/pick accepts).
fzf_ok() {
	"$1" --version 2>/dev/null | awk '{split($1, v, "."); ok = v[1] > 0 || v[2] >= 65} END {exit !ok}'
}

# The Debian tools: command, then the package that provides it. script(1)
# is in bsdutils on bookworm; ps in procps.
tools='tmux:tmux shellcheck:shellcheck dash:dash git:git script:bsdutils ps:procps node:nodejs curl:curl less:less zsh:zsh fish:fish sshd:openssh-server ssh:openssh-client chromium:chromium'
# The demo runs tmux and tma (and less when it is there: shell/demo.sh).
[ "$target" = demo ] && tools='tmux:tmux'

missing_pkgs=""
missing_cmds=""
for tp in $tools; do
	c=${tp%%:*}
	p=${tp#*:}
	# sshd lives in /usr/sbin, which a user's PATH often leaves out.
	if ! command -v "$c" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$c" ]; then
		missing_cmds="$missing_cmds $c"
		missing_pkgs="$missing_pkgs $p"
	fi
done
# go fetches fzf over HTTPS.
if [ ! -e /etc/ssl/certs/ca-certificates.crt ] && command -v apt-get >/dev/null 2>&1; then
	missing_pkgs="$missing_pkgs ca-certificates"
fi
missing_pkgs=${missing_pkgs# }
missing_cmds=${missing_cmds# }

if [ -n "$missing_pkgs" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		if command -v apt-get >/dev/null 2>&1; then
			say "missing ${missing_cmds:-ca-certificates}; install with: sudo apt-get install -y --no-install-recommends $missing_pkgs"
		else
			say "missing ${missing_cmds:-ca-certificates}; install them with your package manager (Debian packages: $missing_pkgs)"
		fi
		exit 2
	fi
	command -v apt-get >/dev/null 2>&1 || {
		say "missing $missing_cmds and no apt-get to install them with (Debian packages: $missing_pkgs)"
		exit 2
	}
	say "apt-get install $missing_pkgs"
	# A fresh machine may have no package lists yet: update once and retry.
	# shellcheck disable=SC2086 # the package list is words
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing_pkgs >&2 ||
		{ DEBIAN_FRONTEND=noninteractive apt-get update >&2 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing_pkgs >&2; } || {
		say "apt-get install $missing_pkgs failed"
		exit 1
	}
	for c in $missing_cmds; do
		command -v "$c" >/dev/null 2>&1 || {
			say "$c is still not on PATH after apt-get install"
			exit 1
		}
	done
fi

# fzf: the user's own when new enough, else the pinned one in bin/.
user_fzf=$(command -v fzf 2>/dev/null) || user_fzf=""
if [ -n "$user_fzf" ] && fzf_ok "$user_fzf"; then
	:
elif [ -x "$bindir/fzf" ] && fzf_ok "$bindir/fzf"; then
	:
else
	say "building fzf ($fzf_mod) into $bindir"
	mkdir -p "$bindir" || exit 1
	GOBIN=$bindir "$go_bin" install "$fzf_mod" || {
		say "go install $fzf_mod failed (the Go module proxy must be reachable)"
		exit 1
	}
	fzf_ok "$bindir/fzf" || {
		say "$bindir/fzf does not run"
		exit 1
	}
fi
[ -n "${TMA_DEPS_QUIET:-}" ] || say "ok: every tool make $target needs is here"
exit 0
