# tma: build, test, demo, install. See README.md.
GO      ?= go
PREFIX  ?= $(HOME)/.local
BINDIR  ?= $(PREFIX)/bin
TOOLS   := tma-scan tma-fold tma-stamp tma-view tma-hook tma-wait tma-setup tma-pick tma-act tma-notify tma-daemon tma-transcript tma-serve
# The picker executes fzf; install builds this pinned one beside tma
# (tma prefers a user's own fzf when it is 0.65 or newer). uninstall removes
# it only when install put it there (the install record says).
FZF_VERSION := 0.65.2
FZF     := github.com/junegunn/fzf@v$(FZF_VERSION)
VERSION ?= 0.1.0
LDFLAGS := -s -w -X github.com/tmaproject/tma/lib/cli/common.Version=$(VERSION)

.PHONY: all build deps test unit integration lint bench demo install uninstall clean capture e2e-agents drift drift-latest fuzz dist stress

all: build

# Static binaries (CGO_ENABLED=0): kong imports os/user, which with cgo
# links libc into every tool, and each run of a hook or a status-line stage
# then pays the dynamic loader and cgo's start (about 1 ms of CPU per
# process measured on a 2-vCPU machine).
build:
	@mkdir -p bin
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ $(addprefix ./cmd/,$(TOOLS))
	cp shell/tma bin/tma
	chmod +x bin/tma

# What make test needs beyond Go (shell/deps.sh): the pinned fzf built into
# bin/, the Debian tools by apt-get as root (else the exact install command,
# exit 2). A no-op when nothing is missing. make demo asks for its own few
# (shell/deps.sh demo: tmux and the fzf).
deps:
	@GO=$(GO) TMA_FZF_MODULE=$(FZF) TMA_DEPS_QUIET=1 sh shell/deps.sh

# Every test: lint, unit, CLI contracts and integration against real,
# isolated tmux servers. A test whose tool is missing fails (make deps
# provides them all); only the opt-in tiers below are left out. The
# integration package takes about 5 minutes on an idle 2-core machine and
# more than go test's default 10 on a loaded one, hence -timeout.
test: deps build lint
	$(GO) test -count=1 -timeout 45m ./...
	@echo "make test: passed. Not run (opt-in): TMA_LAB=1 go test ./fixtures/lab/... ./tests/integration/ -run Live (the lab's captures from the real agents, and tma act against a real OpenCode), make e2e-agents (the release check), make bench, make fuzz"

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt wants changes in:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@# The release archives are built for darwin too (make dist), and
	@# tests/dist builds the host's alone: every package must compile there.
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...
	shellcheck shell/tma tma.tmux $$(find shell bench .ci scripts -type f \( -name '*.sh' -o -name run \) 2>/dev/null)

# Every native fuzz target for FUZZTIME each (docs/fuzz.md); a crasher
# lands in its package's testdata/fuzz/ as a regression case.
FUZZTIME ?= 30s
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) sh shell/fuzz.sh

# The release archives, linux and darwin on amd64 and arm64, and SHA256SUMS
# into dist/ (shell/dist.sh; docs/install.md); each carries the pinned fzf.
dist:
	GO=$(GO) VERSION=$(VERSION) FZF_VERSION=$(FZF_VERSION) sh shell/dist.sh

bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./bench/

# The control-mode crash stress (scripts/control-crash.sh, docs/ci.md):
# ROUNDS rounds of tma wait, subscribe and the daemon against a server whose
# windows churn; fails on any server death or new tmux segfault line.
# TMUX_BIN runs another tmux (scripts/tmux-versions.sh prints wrappers for
# 3.5a and 3.7c); MODE=poll|none and CHURN=output are its controls.
ROUNDS   ?= 200
TMUX_BIN ?= tmux
MODE     ?= tma
CHURN    ?= windows
stress: build
	MODE='$(MODE)' CHURN='$(CHURN)' sh scripts/control-crash.sh bin '$(ROUNDS)' '$(TMUX_BIN)'

# The demo needs tmux, Go and the pinned fzf only (shell/deps.sh demo), not
# the test toolchain.
demo: build
	@GO=$(GO) TMA_FZF_MODULE=$(FZF) TMA_DEPS_QUIET=1 sh shell/deps.sh demo
	./shell/demo.sh

# Every file is written beside its name in BINDIR, then all are renamed
# over (tma-setup install-files, lib/bininstall): no "Text file busy" while
# a daemon or a hook runs the old build, and never a mix of two builds. A
# daemon the old build left running is then replaced by this one ([daemon]
# restart_on_upgrade, default on; docs/install.md). The pinned fzf goes
# beside tma when BINDIR has none, or one older than 0.65, or the one tma
# installed; the install record (installed-files.toml in tma's config dir)
# says which files are tma's, for tma uninstall.
install: build
	@bin/fzf --version 2>/dev/null | awk '{split($$1, v, "."); ok = v[1] > 0 || v[2] >= 65} END {exit !ok}' || \
		{ echo "GOBIN=$(abspath bin) $(GO) install $(FZF)"; GOBIN=$(abspath bin) $(GO) install $(FZF); }
	bin/tma-setup install-files --from bin --bindir '$(BINDIR)' --fzf bin/fzf tma $(TOOLS)

# tma uninstall: every agent's hooks and the keys (each change shown as a
# diff and confirmed; UNINSTALL_FLAGS=--yes applies them all), the daemons
# running from BINDIR, then the files the install record names.
uninstall:
	@if [ -x '$(BINDIR)/tma' ] && [ -x '$(BINDIR)/tma-setup' ]; then \
		echo "$(BINDIR)/tma uninstall --bindir '$(BINDIR)' $(UNINSTALL_FLAGS)"; \
		'$(BINDIR)/tma' uninstall --bindir '$(BINDIR)' $(UNINSTALL_FLAGS); \
	else echo "no tma in $(BINDIR): nothing to uninstall there (PREFIX= or BINDIR= names another install)"; fi

clean:
	rm -rf bin dist

# The agent lab (docs/lab.md, docs/detection.md): root, the npm registry,
# minutes per agent. AGENT=codex narrows any of them to one agent.
capture:
	fixtures/lab/run.sh $(AGENT)

e2e-agents: build
	fixtures/lab/e2e.sh $(AGENT)

drift:
	fixtures/lab/drift.sh $(AGENT)

# The newest release of each agent from the registry, against the committed
# fixtures (docs/lab.md, "Drift against the newest").
drift-latest:
	fixtures/lab/drift-latest.sh $(AGENT)
