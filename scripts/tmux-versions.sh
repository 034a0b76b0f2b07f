#!/bin/sh
# tmux-versions.sh [CACHE_DIR]: prepares the tmux releases tma is tested on beside
# the system's own (Debian 12's 3.3a), without installing them, and prints one
# wrapper path per line, oldest first:
#
#   CACHE_DIR/tmux-3.5a   bookworm-backports' tmux, unpacked
#   CACHE_DIR/tmux-3.7c   trixie-backports' tmux, unpacked with trixie's libc and
#                         the libraries it links, started through trixie's own
#                         dynamic loader (ld.so --library-path), so nothing of
#                         trixie reaches the system or the panes' programs
#
# Point TMA_TMUX_BIN at a wrapper to run tma and its tests on that tmux
# (docs/ci.md). CACHE_DIR defaults to /var/cache/tma-tmux; a second run with
# both wrappers working uses no network.
#
# The packages come from this machine's own apt source (the URIs line of
# /etc/apt/sources.list.d/*.sources, else the deb lines of /etc/apt/sources.list):
# only the suite changes. apt runs on a private sources list, lists and cache
# under CACHE_DIR; the system's apt state is left as it was. The one system
# change: bookworm's libjemalloc2, which the 3.5a build links, is installed
# with apt-get when missing and this runs as root (else the command is named).
set -eu

want35=3.5a
want37=3.7c
cache=${1:-/var/cache/tma-tmux}
case $cache in /*) ;; *) cache=$(pwd)/$cache ;; esac
log=$cache/apt.log

die() {
	echo "tmux-versions: $*" >&2
	exit 1
}

# q WORD: WORD quoted for sh, for the wrappers' text.
q() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# wrappers_ok: both wrappers exist and report the versions they are named for.
wrappers_ok() {
	[ "$("$cache/tmux-$want35" -V 2>/dev/null)" = "tmux $want35" ] &&
		[ "$("$cache/tmux-$want37" -V 2>/dev/null)" = "tmux $want37" ]
}

if [ -x "$cache/tmux-$want35" ] && [ -x "$cache/tmux-$want37" ] && wrappers_ok; then
	echo "$cache/tmux-$want35"
	echo "$cache/tmux-$want37"
	exit 0
fi

# The machine's archive URI and keyring: from the deb822 stanza (or the
# one-line entry) that serves this release's own suite, else the first one.
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
src=$(for f in /etc/apt/sources.list.d/*.sources; do
	[ -r "$f" ] || continue
	cat "$f"
	echo
done | awk -v want="$codename" '
	function flush() {
		if (uri != "" && deb && enabled) {
			if (first == "") first = uri " " key
			if (hit && best == "") best = uri " " key
		}
		uri = ""; key = ""; deb = 0; hit = 0; enabled = 1
	}
	BEGIN { enabled = 1 }
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { flush(); next }
	{ f = tolower($1) }
	f == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
	f == "uris:" { uri = $2 }
	f == "suites:" { for (i = 2; i <= NF; i++) if ($i == want) hit = 1 }
	f == "signed-by:" && $2 ~ /^\// { key = $2 }
	f == "enabled:" && tolower($2) == "no" { enabled = 0 }
	END { flush(); if (best != "") print best; else if (first != "") print first }
')
if [ -z "$src" ] && [ -r /etc/apt/sources.list ]; then
	src=$(awk -v want="$codename" '
		$1 != "deb" { next }
		{
			line = $0; key = ""
			sub(/^deb[ \t]+/, "", line)
			if (line ~ /^\[/) {
				opts = substr(line, 2, index(line, "]") - 2)
				line = substr(line, index(line, "]") + 1)
				n = split(opts, o, /[ \t]+/)
				for (i = 1; i <= n; i++) if (o[i] ~ /^signed-by=\//) key = substr(o[i], 11)
			}
			split(line, w, " ")
			if (first == "") first = w[1] " " key
			if (w[2] == want && best == "") best = w[1] " " key
		}
		END { if (best != "") print best; else if (first != "") print first }
	' /etc/apt/sources.list)
fi
[ -n "$src" ] || die "no apt source on this machine (no URIs line in /etc/apt/sources.list.d/*.sources, no deb line in /etc/apt/sources.list)"
uri=${src%% *}
key=${src#* }
[ -n "$key" ] || key=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$cache/apt/etc" "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
for suite in bookworm-backports trixie trixie-backports; do
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n\n' "$uri" "$suite" "$key"
done >"$cache/apt/etc/tma.sources"

# apt on the private sources, lists and cache; its output goes to the log,
# which is shown when a step fails.
apt_x() {
	apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$cache/apt/etc" \
		-o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt/cache" "$@" >>"$log" 2>&1 || {
		echo "tmux-versions: apt-get $* failed; its log ($log):" >&2
		tail -n 30 "$log" >&2
		exit 1
	}
}
: >"$log"
apt_x update

# fetch NAME PKG/SUITE...: the packages' debs, unpacked into CACHE_DIR/NAME.
fetch() {
	name=$1
	shift
	rm -rf "${cache:?}/debs-$name" "${cache:?}/$name"
	mkdir -p "$cache/debs-$name"
	(cd "$cache/debs-$name" && apt_x download "$@")
	for d in "$cache/debs-$name"/*.deb; do
		dpkg -x "$d" "$cache/$name" || die "dpkg -x $d failed"
	done
}

# 3.5a is built for bookworm: the system's loader and libraries run it, and
# it links libjemalloc2, which Debian 12's own tmux does not.
fetch "$want35" tmux/bookworm-backports
if ! dpkg-query -W -f '${Status}' libjemalloc2 2>/dev/null | grep -q 'ok installed'; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libjemalloc2 >>"$log" 2>&1 ||
			die "apt-get install libjemalloc2 failed (log: $log)"
	else
		die "tmux $want35 needs libjemalloc2: sudo apt-get install libjemalloc2"
	fi
fi
printf '#!/bin/sh\nexec %s "$@"\n' "$(q "$cache/$want35/usr/bin/tmux")" >"$cache/tmux-$want35"

# 3.7c is built for trixie's libc: its own loader with trixie's libraries
# first. --library-path is not inherited, so the server's children (the
# panes, run-shell, #()) start on the system's libc as usual.
fetch "$want37" tmux/trixie-backports libc6/trixie libtinfo6/trixie libevent-core-2.1-7t64/trixie \
	libjemalloc2/trixie libsystemd0/trixie libcap2/trixie
ld=
for f in "$cache/$want37"/usr/lib/*-linux-gnu/ld-linux*.so.[0-9]; do
	[ -e "$f" ] && ld=$f && break
done
[ -n "$ld" ] || die "no dynamic loader in trixie's libc6 under $cache/$want37/usr/lib"
printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' \
	"$(q "$ld")" "$(q "${ld%/*}")" "$(q "$cache/$want37/usr/bin/tmux")" >"$cache/tmux-$want37"
chmod +x "$cache/tmux-$want35" "$cache/tmux-$want37"

for v in "$want35" "$want37"; do
	got=$("$cache/tmux-$v" -V 2>&1) || die "$cache/tmux-$v -V failed: $got"
	[ "$got" = "tmux $v" ] ||
		die "$cache/tmux-$v reports '$got', not tmux $v: the suite moved on; update scripts/tmux-versions.sh and docs/ci.md"
done
echo "$cache/tmux-$want35"
echo "$cache/tmux-$want37"
