#!/bin/sh
# dist.sh: the release archives (make dist; docs/install.md). For each
# platform, one tma-<os>-<arch>.tar.gz holding a directory of the same name
# with the static tools (CGO_ENABLED=0, -trimpath), the tma dispatcher, the
# completion scripts under completions/, the README, tma's LICENSE and
# THIRD_PARTY_NOTICES.md (every module linked, with its licence), and fzf
# (the picker executes it) built from its module at the Makefile's
# FZF_VERSION with its licence beside it as LICENSE.fzf; then SHA256SUMS over
# the archives, the file install.sh checks them against. The archive names
# carry no version, so install.sh finds the latest release's by name; the
# version is in the binaries (tma version) and in VERSION inside.
#
#   VERSION     the release version, as the Makefile's (0.1.0; the tag is v0.1.0)
#   DIST_DIR    where the archives go (default dist; emptied first)
#   PLATFORMS   os/arch pairs (default: linux and darwin, amd64 and arm64)
#   GO          the go command (default go)
#   FZF_VERSION the fzf to build (default: the Makefile's FZF_VERSION)
set -eu
GO=${GO:-go}
VERSION=${VERSION:?VERSION is the release version, e.g. VERSION=0.1.0}
DIST_DIR=${DIST_DIR:-dist}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
TOOLS='tma-scan tma-fold tma-stamp tma-view tma-hook tma-wait tma-setup tma-pick tma-act tma-notify tma-daemon tma-transcript tma-serve'
# -s -w: no symbol table, no DWARF (about a third of each binary); a
# panic's stack trace keeps its function names and lines.
LDFLAGS="-s -w -X github.com/tmaproject/tma/lib/cli/common.Version=$VERSION"

if [ ! -f go.mod ] || [ ! -f shell/tma ] || [ ! -f LICENSE ]; then
	echo "dist.sh: run it from the repository root" >&2
	exit 2
fi
FZF_VERSION=${FZF_VERSION:-$(sed -n 's/^FZF_VERSION[[:space:]]*:=[[:space:]]*//p' Makefile)}
if [ -z "$FZF_VERSION" ]; then
	echo "dist.sh: no FZF_VERSION (the Makefile pins it)" >&2
	exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fzf's module, from the Go module proxy into the module cache: built in
# its own directory, with its own go.mod and go.sum, so its dependencies
# are the ones fzf's release chose and nothing of ours is linked in.
fzf_dir=$(cd "$work" && "$GO" mod download -json "github.com/junegunn/fzf@v$FZF_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
if [ -z "$fzf_dir" ] || [ ! -f "$fzf_dir/LICENSE" ]; then
	echo "dist.sh: go mod download github.com/junegunn/fzf@v$FZF_VERSION failed (the Go module proxy must be reachable)" >&2
	exit 1
fi
rm -rf "$DIST_DIR"
mkdir -p "$DIST_DIR"

# The completion scripts come from the tools' own grammars, the same on
# every platform: one host build of tma-setup writes them.
CGO_ENABLED=0 "$GO" build -trimpath -o "$work/host/" ./cmd/tma-setup
mkdir -p "$work/completions"
"$work/host/tma-setup" completions bash >"$work/completions/tma.bash"
"$work/host/tma-setup" completions zsh >"$work/completions/_tma"
"$work/host/tma-setup" completions fish >"$work/completions/tma.fish"

for p in $PLATFORMS; do
	os=${p%/*} arch=${p#*/}
	name=tma-$os-$arch
	dir=$work/$name
	mkdir -p "$dir/completions"
	pkgs=
	for t in $TOOLS; do pkgs="$pkgs ./cmd/$t"; done
	# -buildvcs=auto overrides a GOFLAGS=-buildvcs=false: built in a git
	# checkout, tma version names the commit; from a tarball it says less.
	# shellcheck disable=SC2086 # one word per package
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -buildvcs=auto -ldflags "$LDFLAGS" -o "$dir/" $pkgs
	# main.version and main.revision as fzf's own Makefile sets them, so
	# fzf --version says 0.65.2, not the source's "0.65 (devel)".
	(cd "$fzf_dir" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath \
		-ldflags "-s -w -X main.version=$FZF_VERSION -X main.revision=tma" -o "$dir/fzf" .)
	cp "$fzf_dir/LICENSE" "$dir/LICENSE.fzf"
	chmod 644 "$dir/LICENSE.fzf"
	cp shell/tma "$dir/tma"
	chmod 755 "$dir/tma"
	cp "$work/completions/"* "$dir/completions/"
	cp README.md LICENSE THIRD_PARTY_NOTICES.md "$dir/"
	echo "$VERSION" >"$dir/VERSION"
	# GNU tar normalizes owner and times: the archive says what it holds,
	# not who built it when.
	if tar --version 2>/dev/null | grep -q GNU; then
		tar -C "$work" --owner=0 --group=0 --numeric-owner --mtime=@0 -czf "$DIST_DIR/$name.tar.gz" "$name"
	else
		tar -C "$work" -czf "$DIST_DIR/$name.tar.gz" "$name"
	fi
	echo "dist: $DIST_DIR/$name.tar.gz"
done

cd "$DIST_DIR"
if command -v sha256sum >/dev/null 2>&1; then
	sha256sum -- *.tar.gz >SHA256SUMS
else
	shasum -a 256 -- *.tar.gz >SHA256SUMS
fi
echo "dist: $DIST_DIR/SHA256SUMS"
