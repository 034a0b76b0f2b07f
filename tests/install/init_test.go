package install

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/install"
)

// snapshot maps every file under dir to its bytes and modification time, so
// a run that rewrote a file with the same bytes is caught too.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = info.ModTime().Format(time.RFC3339Nano) + " " + info.Mode().String() + "\n" + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for p, v := range after {
		if before[p] != v {
			diffs = append(diffs, "changed or created: "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, "removed: "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("the run changed files:\n%s", strings.Join(diffs, "\n"))
	}
}

const userConf = "set -g prefix C-a\nset -g status-right '%H:%M'\n"

// TestInitFirstRunThenNothing: two agents on $PATH are wired, the tmux hooks
// and the keybindings installed, every write shown as a diff first; a second
// run changes no byte (and rewrites no file); the status-line report follows
// the server.
func TestInitFirstRunThenNothing(t *testing.T) {
	s := newServer(t)
	h := newHome(t)
	t.Setenv("TMA_SOCKET_PATH", s.Socket)
	writeExec(t, filepath.Join(h.Bin, "claude"))
	writeExec(t, filepath.Join(h.Bin, "codex"))
	writeExec(t, filepath.Join(h.Bin, "node"))  // a runtime: never taken for an agent
	writeExec(t, filepath.Join(h.Bin, "crush")) // no hooks: named, nothing wired
	h.write(".tmux.conf", userConf)

	r := tma(t, "init", "--yes")
	must(t, r, 0,
		"tma: init 1/7:",
		"  claude    found: "+filepath.Join(h.Bin, "claude"),
		"  codex     found: "+filepath.Join(h.Bin, "codex"),
		"  gemini    not found (looked for gemini)",
		"  pi        not found (looked for pi)",
		"  cursor    not found (looked for cursor, agent, cursor-agent)",
		"  crush     found: "+filepath.Join(h.Bin, "crush")+" (no hooks to wire: tma reads its screen)",
		"tma: init 2/7: wire the hooks of claude, codex (as tma install-hooks <agent>)",
		"tma: proposed change to ~/.claude/settings.json (agent hooks):",
		`"command": "tma-hook claude Stop"`,
		"tma: proposed change to ~/.codex/config.toml (codex notify):",
		"tma: installed hooks for claude",
		"tma: installed hooks for codex",
		"tma: installed tmux hooks after-select-pane, session-window-changed on "+s.Socket,
		"tma: init 3/7: the status line",
		// The keys' launcher starts a daemon: the status line reads the
		// options it keeps (issue 29 item 5).
		"tma: nothing shows tma's counts in your status line yet",
		"Add these lines to ~/.tmux.conf:\n  set -g status-right '#{E:@tma_status} %H:%M'\n  set -g window-status-format '#I:#W#{?@agent_summary, #{@agent_summary},}'\n",
		"(~/.tmux.conf sets status-right already, on line 2: you can put `#{E:@tma_status} ` at the front",
		"`#(tma status)` in place of `#{E:@tma_status}` drives the state itself",
		"then reload it: tmux -S "+s.Socket+" source-file ~/.tmux.conf",
		"tma: init 4/7: the keybindings (as tma install-keys)",
		"tma: proposed change to ~/.config/tma/tmux.conf (tma keybindings):",
		"tma: proposed change to ~/.tmux.conf (tma keys source-file):",
		"tma: installed keybindings (~/.config/tma/tmux.conf).",
		// --yes reloads the config the keys went into on the server.
		"tma: reloaded ~/.tmux.conf on "+s.Socket,
		"tma: init 5/7: a resident daemon of another build",
		"tma: init 6/7: the daemon (as tma daemon --ensure)\n  not started: --daemon starts one now",
		"tma: init 7/7: tma doctor",
		"ambient:",
		"wrapper: tma-hook ✓ on $PATH",
	)
	if strings.Contains(r.stdout, "(looked for pi, node)") || strings.Contains(r.stdout, "found: "+filepath.Join(h.Bin, "node")) {
		t.Fatalf("node was looked for as an agent:\n%s", r)
	}
	if strings.Contains(r.stdout, "tma: reminder:") {
		t.Fatalf("init repeats install-keys' status-right reminder after its own report:\n%s", r)
	}
	// Ordered as the manual's steps.
	last := -1
	for _, step := range []string{"init 1/7", "init 2/7", "init 3/7", "init 4/7", "init 5/7", "init 6/7", "init 7/7"} {
		i := strings.Index(r.stdout, step)
		if i < last {
			t.Fatalf("%s out of order:\n%s", step, r.stdout)
		}
		last = i
	}
	if !strings.Contains(h.read(".codex/config.toml"), `notify = ["tma-hook", "codex", "notify"]`) ||
		!strings.Contains(h.read(".tmux.conf"), "# tma keys") || h.read(".config/tma/tmux.conf") != string(install.KeysFile(install.KeysSpec{Daemon: true})) {
		t.Fatal("init did not write what install-hooks and install-keys write")
	}
	if h.read(".gemini/settings.json") != "<absent>" {
		t.Fatal("an agent not on $PATH was wired")
	}
	if len(ours(s)) != 2 {
		t.Fatalf("tmux hooks: %v", ours(s))
	}
	// The same posture install-hooks --check and install-keys --check expect.
	must(t, tma(t, "install-hooks", "--check"), 0, "hooks OK")
	must(t, tma(t, "install-keys", "--check"), 0, "keys OK")

	// Second run: nothing proposed, nothing written, not even the record.
	before := snapshot(t, h.Dir)
	time.Sleep(20 * time.Millisecond)
	r = tma(t, "init", "--yes")
	must(t, r, 0, "tma: hooks for claude already installed", "tma: hooks for codex already installed",
		"tma: keybindings already installed (~/.config/tma/tmux.conf, sourced from ~/.tmux.conf)")
	if strings.Contains(r.stdout, "proposed change") || strings.Contains(r.stdout, "installed tmux hooks") {
		t.Fatalf("a re-run proposed changes:\n%s", r)
	}
	sameSnapshot(t, before, snapshot(t, h.Dir))
	if len(ours(s)) != 2 {
		t.Fatalf("tmux hooks after a re-run: %v", ours(s))
	}

	// The status line already runs tma status: said so, no line printed.
	s.MustRun("set", "-g", "status-right", "#(tma status) %H:%M")
	r = tma(t, "init", "--yes")
	must(t, r, 0, "tma: your status-right already shows tma's counts on "+s.Socket+": nothing to add")
	if strings.Contains(r.stdout, "Add th") {
		t.Fatalf("the line printed although the server runs it:\n%s", r)
	}
	// So does one reading the option the daemon keeps.
	s.MustRun("set", "-g", "status-right", "#{E:@tma_status} %H:%M")
	r = tma(t, "init", "--yes")
	must(t, r, 0, "tma: your status-right already shows tma's counts on "+s.Socket+": nothing to add")
	if strings.Contains(r.stdout, "Add th") || strings.Contains(r.stdout, "reloaded") {
		t.Fatalf("advice or a reload although nothing changed:\n%s", r)
	}
	sameSnapshot(t, before, snapshot(t, h.Dir))
}

// TestInitNoTerminalDeclines: with no terminal and no --yes init says so up
// front, every confirmation declines, nothing is written (not the agent
// configs, the keys, the record or the server's hooks) and it exits 1.
func TestInitNoTerminalDeclines(t *testing.T) {
	s := newServer(t)
	h := newHome(t)
	t.Setenv("TMA_SOCKET_PATH", s.Socket)
	writeExec(t, filepath.Join(h.Bin, "claude"))
	writeExec(t, filepath.Join(h.Bin, "gemini"))
	h.write(".tmux.conf", userConf)
	before := snapshot(t, h.Dir)

	r := tma(t, "init")
	must(t, r, 1,
		"tma: error: no terminal to confirm on and no --yes: ~/.claude/settings.json left unchanged",
		"tma: error: no terminal to confirm on and no --yes: ~/.gemini/settings.json left unchanged",
		"tma: error: no terminal to confirm on and no --yes: ~/.config/tma/tmux.conf left unchanged",
		"tma: error: no terminal to confirm on and no --yes: ~/.tmux.conf left unchanged",
		"tma: proposed change to ~/.claude/settings.json (agent hooks):",
		"tma: init 7/7: tma doctor",
		"tma: init did not finish",
	)
	if !strings.HasPrefix(r.stdout, "tma: no terminal on stdin and no --yes: every confirmation below declines") {
		t.Fatalf("init does not say so up front:\n%s", r)
	}
	sameSnapshot(t, before, snapshot(t, h.Dir))
	if len(ours(s)) != 0 {
		t.Fatalf("declined init installed tmux hooks: %v", ours(s))
	}
}

// TestInitStatusLineFromConfig: with no server the report reads the tmux
// config; a config the server has not loaded is named with its reload.
func TestInitStatusLineFromConfig(t *testing.T) {
	s := newServer(t)
	h := newHome(t) // TMA_SOCKET_PATH names no server yet
	h.write(".config/tmux/tmux.conf", "set-option -g status-right \"#(/usr/local/bin/tma status) %H:%M\"\n")
	r := tma(t, "init", "--yes")
	must(t, r, 0, "tma: ~/.config/tmux/tmux.conf already shows tma's counts in a status line (no tmux server on",
		"tma: init 2/7: wire the hooks: no agent found on $PATH, nothing to wire",
		"tma: installed keybindings (~/.config/tma/tmux.conf). Reload with `tmux source-file ~/.config/tmux/tmux.conf`.")

	t.Setenv("TMA_SOCKET_PATH", s.Socket)
	must(t, tma(t, "init", "--yes"), 0,
		"tma: ~/.config/tmux/tmux.conf shows tma's counts but the server on "+s.Socket+" has not loaded it: reload with `tmux -S "+s.Socket+" source-file ~/.config/tmux/tmux.conf`",
		// --yes takes the reload init offers.
		"tma: reloaded ~/.config/tmux/tmux.conf on "+s.Socket)
	if got := s.MustRun("show-options", "-gqv", "status-right"); !strings.Contains(got, "tma status") {
		t.Fatalf("the reload did not load the config: status-right %q", got)
	}

	// A commented-out line does not count.
	h.write(".config/tmux/tmux.conf", "# set -g status-right '#(tma status)'\n")
	s.MustRun("set", "-g", "status-right", "%H:%M")
	must(t, tma(t, "init", "--yes"), 0, "nothing shows tma's counts in your status line yet", "Add these lines to ~/.config/tmux/tmux.conf:")
}

// TestInitStatusLineWithoutDaemon: keys installed with --no-daemon, no
// daemon running and no --daemon: nothing keeps @tma_status, so init
// advises #(tma status), the driver itself, and no #{E:@tma_status}.
func TestInitStatusLineWithoutDaemon(t *testing.T) {
	s := newServer(t)
	h := newHome(t)
	t.Setenv("TMA_SOCKET_PATH", s.Socket)
	h.write(".tmux.conf", userConf)
	must(t, tma(t, "install-keys", "--yes", "--no-daemon"), 0)
	r := tma(t, "init", "--yes")
	must(t, r, 0, "tma: nothing runs `tma status` in your status line yet (the ambient state driver; no daemon will keep the counts for you)",
		"Add this line to ~/.tmux.conf:\n  set -g status-right '#(tma status) %H:%M'\n")
	step3 := r.stdout[strings.Index(r.stdout, "init 3/7"):strings.Index(r.stdout, "init 4/7")]
	if strings.Contains(step3, "@tma_status") {
		t.Fatalf("advised the daemon's option with no daemon:\n%s", step3)
	}
	// With --daemon the daemon is there to keep it (starting it fails
	// here, with no tma-daemon: the advice does not wait for it).
	if r := tma(t, "init", "--yes", "--daemon"); !strings.Contains(r.stdout, "  set -g status-right '#{E:@tma_status} %H:%M'\n") {
		t.Fatalf("init --daemon does not advise the daemon's option:\n%s", r)
	}
}

// TestInitFailedStepGoesOn: a step that fails (no tma-hook to wire) does not
// stop the others; the run exits 1. --daemon fails its step with no tmux
// server to start a daemon for.
func TestInitFailedStepGoesOn(t *testing.T) {
	h := newHome(t)
	writeExec(t, filepath.Join(h.Bin, "claude"))
	os.Remove(h.Hook)
	r := tma(t, "init", "--yes")
	must(t, r, 1, "  claude    found:", "tma: error: tma-hook is not on $PATH", "tma: installed keybindings", "tma: init 7/7")
	if h.read(".claude/settings.json") != "<absent>" {
		t.Fatal("wired claude without a wrapper")
	}

	h2 := newHome(t)
	r = tma(t, "init", "--yes", "--daemon")
	must(t, r, 1, "tma: error: --daemon: no tmux server running on", "tma: init 7/7")
	if h2.read(".config/tma/tmux.conf") == "<absent>" {
		t.Fatal("--daemon stopped the other steps")
	}
}

// TestInitKeepsKeysChoices: init installs the keys as install-keys does, but
// never undoes an earlier --mouse or --no-daemon.
func TestInitKeepsKeysChoices(t *testing.T) {
	h := newHome(t)
	must(t, tma(t, "install-keys", "--yes", "--mouse", "--no-daemon"), 0)
	want := h.read(".config/tma/tmux.conf")
	r := tma(t, "init", "--yes")
	must(t, r, 0, "tma: keybindings already installed")
	if h.read(".config/tma/tmux.conf") != want {
		t.Fatal("init rewrote the managed keys file")
	}
	// A pinned --config-dir goes to the keys step as install-keys takes it.
	dir := filepath.Join(t.TempDir(), "my tma")
	must(t, tma(t, "init", "--yes", "--config-dir", dir), 0, "tma: proposed change to "+filepath.Join(dir, "tmux.conf"))
	if !strings.Contains(h.read(".tmux.conf"), `source-file -q "`+filepath.Join(dir, "tmux.conf")+`" # tma keys`) {
		t.Fatalf("pinned source line missing:\n%s", h.read(".tmux.conf"))
	}
}

// TestInitSkipsDisabledAgents: an agent whose manifest is not loaded is
// reported and left alone, even with its launcher on $PATH.
func TestInitSkipsDisabledAgents(t *testing.T) {
	h := newHome(t)
	writeExec(t, filepath.Join(h.Bin, "claude"))
	writeExec(t, filepath.Join(h.Bin, "pi"))
	h.write("tma.toml", "[[agent]]\nname = \"pi\"\nenabled = false\n")
	t.Setenv("TMA_CONFIG", h.path("tma.toml"))
	r := tma(t, "init", "--yes")
	must(t, r, 0, "  pi        skipped: no manifest loaded for it", "tma: installed hooks for claude")
	if h.read(".pi/agent/extensions/tma.js") != "<absent>" {
		t.Fatal("a disabled agent was wired")
	}
}
