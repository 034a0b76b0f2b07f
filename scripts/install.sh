#!/bin/sh
# install.sh: install tma from a release, without sudo (docs/install.md).
#
#   curl -fsSL https://raw.githubusercontent.com/tmaproject/tma/main/scripts/install.sh | sh
#
# It picks the archive for this platform (Linux and macOS, x86_64 and
# arm64), checks it against the release's SHA256SUMS, puts tma and its
# tma-* tools in ~/.local/bin (replacing an older install in place), the
# archive's fzf beside them when the fzf on PATH is missing or older than
# the picker needs (0.65), prints a PATH hint when that directory is not on
# PATH, and installs the completion scripts for whichever of bash, zsh and
# fish is here. Set these on the sh side of the pipe:
#
#   TMA_VERSION=v0.1.0      a release tag (default: the latest release)
#   TMA_INSTALL_DIR=DIR     where the tools go (default: ~/.local/bin)
#   TMA_NO_COMPLETIONS=1    leave the shells' completion directories alone
#   TMA_BASE_URL=URL        the releases to read from (default: tma's on GitHub; a mirror
#                           laid out as GitHub's releases: download/<tag>/, latest/download/)
#
# `tma uninstall` removes it all again: the agents' hooks and the keys (each
# change shown first), the daemons, the completions, then the files.
set -eu

say() { printf 'tma install: %s\n' "$*"; }
die() {
	printf 'tma install: error: %s\n' "$*" >&2
	exit 1
}

base=${TMA_BASE_URL:-https://github.com/tmaproject/tma/releases}
base=${base%/}
: "${HOME:?HOME is not set}"
dir=${TMA_INSTALL_DIR:-$HOME/.local/bin}
case $dir in
"~"/*) dir=$HOME/${dir#"~/"} ;;
esac

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) os= ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) arch= ;;
esac
if [ -z "$os" ] || [ -z "$arch" ]; then
	die "no prebuilt tma for $(uname -s) $(uname -m); build it with Go 1.26 or newer:
  go install github.com/tmaproject/tma/cmd/...@latest
and put shell/tma (the dispatcher) beside the tools, or run make install from a clone"
fi
name=tma-$os-$arch
if [ -n "${TMA_VERSION-}" ]; then
	url=$base/download/$TMA_VERSION
else
	url=$base/latest/download
fi

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	die "neither curl nor wget is installed"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sum() { sha256sum "$1"; }
elif command -v shasum >/dev/null 2>&1; then
	sum() { shasum -a 256 "$1"; }
else
	die "neither sha256sum nor shasum is installed: the download cannot be checked"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say "downloading $url/$name.tar.gz"
fetch "$url/SHA256SUMS" "$tmp/SHA256SUMS" || die "cannot download $url/SHA256SUMS"
fetch "$url/$name.tar.gz" "$tmp/$name.tar.gz" || die "cannot download $url/$name.tar.gz"

# The archive's line in SHA256SUMS: "<sum>  <file>", the file as named.
want=$(awk -v f="$name.tar.gz" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS has no line for $name.tar.gz"
got=$(sum "$tmp/$name.tar.gz" | awk '{ print $1 }')
[ "$got" = "$want" ] || die "$name.tar.gz does not match SHA256SUMS (got $got, want $want): not installed"

tar -C "$tmp" -xzf "$tmp/$name.tar.gz"
src=$tmp/$name
if [ ! -x "$src/tma" ] || [ ! -x "$src/tma-hook" ]; then
	die "$name.tar.gz does not hold tma and tma-hook"
fi

# The picker runs fzf 0.65 or newer: PATH's when it is new enough, else the
# one beside tma. The archive's is offered to install-files when PATH's is
# missing or older (distributions' often are); install-files puts it beside
# tma unless the fzf already there is the user's own and new enough.
fzf_version() { "$1" --version 2>/dev/null | awk 'NR == 1 { print $1 }'; }
# at_least A B: version A is B or newer (numeric, dot by dot).
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		na = split(a, x, "."); nb = split(b, y, ".")
		for (i = 1; i <= (na > nb ? na : nb); i++) {
			if (x[i] + 0 > y[i] + 0) exit 0
			if (x[i] + 0 < y[i] + 0) exit 1
		}
		exit 0
	}'
}
fzf=
path_fzf=$(command -v fzf 2>/dev/null) || path_fzf=
have=
[ -z "$path_fzf" ] || have=$(fzf_version "$path_fzf")
if [ -n "$have" ] && at_least "$have" 0.65; then
	say "fzf: using yours, $path_fzf ($have)"
elif [ -x "$src/fzf" ]; then
	if [ -z "$path_fzf" ]; then
		say "fzf: no fzf on your PATH"
	else
		say "fzf: $path_fzf is ${have:-an fzf that does not run}, the picker needs 0.65 or newer"
	fi
	fzf=$src/fzf
else
	say "the picker (tma with no command) needs fzf 0.65 or newer, which is not on your PATH"
fi

# tma-setup install-files, the archive's own, is what make install runs:
# every tool is written beside its final name, then all are renamed over
# (a hook or daemon running now keeps its old file, the next run the new;
# a failed write replaces nothing), the fzf decision, the record `tma
# uninstall` reads, the daemons of the build it replaced restarted, and
# the PATH hint.
set -- tma
for f in "$src"/tma-*; do
	set -- "$@" "${f##*/}"
done
if [ -n "$fzf" ]; then
	set -- --fzf "$fzf" "$@"
fi
"$src/tma-setup" install-files --from "$src" --bindir "$dir" "$@" || die "tma-setup install-files failed (above): nothing more was done"
say "installed tma $(cat "$src/VERSION" 2>/dev/null || echo) in $dir"

if [ "${TMA_NO_COMPLETIONS-}" != 1 ]; then
	placed() { say "$1 completion: $2"; }
	if command -v bash >/dev/null 2>&1; then
		d=${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions
		mkdir -p "$d" && cp "$src/completions/tma.bash" "$d/tma" && placed bash "$d/tma"
	fi
	if command -v zsh >/dev/null 2>&1; then
		d=$HOME/.local/share/zsh/site-functions
		mkdir -p "$d" && cp "$src/completions/_tma" "$d/_tma" && placed zsh "$d/_tma"
		if ! grep -qs 'zsh/site-functions' "${ZDOTDIR:-$HOME}/.zshrc"; then
			say "zsh does not search $d by default; add above compinit in ~/.zshrc:
  fpath=(~/.local/share/zsh/site-functions \$fpath)"
		fi
	fi
	if command -v fish >/dev/null 2>&1; then
		d=${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions
		mkdir -p "$d" && cp "$src/completions/tma.fish" "$d/tma.fish" && placed fish "$d/tma.fish"
	fi
fi

