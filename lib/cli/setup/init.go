package setupcmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/manifest"
)

type initCmd struct {
	Yes       bool   `name:"yes" short:"y" help:"answer yes to every confirmation."`
	Daemon    bool   `name:"daemon" help:"start the daemon for this server, as tma daemon --ensure does."`
	ConfigDir string `name:"config-dir" placeholder:"DIR" help:"where the managed keybindings file lives, as install-keys --config-dir (env TMA_CONFIG_DIR)."`
	Conf      string `name:"conf" placeholder:"PATH" help:"the tmux config the keys' source-file line and the status-line advice are for, as install-keys --conf."`
}

// GenericNames are process names that identify a runtime, not an agent:
// init never looks for an agent under one of them.
var GenericNames = []string{"node", "nodejs", "bun", "deno", "python", "python3", "ruby", "java"}

func generic(n string) bool {
	for _, g := range GenericNames {
		if n == g {
			return true
		}
	}
	return false
}

// found is one agent step 1 looked for.
type found struct {
	adapter install.Adapter
	name    string   // a screen-only agent's manifest name (adapter nil)
	path    string   // the launcher found on $PATH, "" when none
	names   []string // the names looked for
	generic []string // the generic names its manifest gives (not looked for)
	skip    string   // why it is not considered at all
}

// initRun is `tma init`: the setup commands in order, in process, on the
// same diff, confirm and atomic-write flow (run.apply).
func (r *run) initRun(k *initCmd) int {
	r.inInit = true
	if !k.Yes && !r.terminal() {
		r.out("tma: no terminal on stdin and no --yes: every confirmation below declines, so init writes nothing (run it from a terminal, or pass --yes)")
	}
	if !r.prepare() {
		return common.ExitFail
	}

	r.step("1/7", "the agents install-hooks wires, looked for on $PATH")
	var wire []install.Adapter
	var names []string
	for _, f := range r.detect() {
		switch {
		case f.skip != "":
			r.out("  %-9s %s", f.adapter.Name(), f.skip)
		case f.path != "":
			r.out("  %-9s found: %s", f.adapter.Name(), f.path)
			wire = append(wire, f.adapter)
			names = append(names, f.adapter.Name())
		case len(f.names) == 0:
			r.out("  %-9s runs under a generic name (%s), so tma cannot detect it (wire it by name: tma install-hooks %s)",
				f.adapter.Name(), strings.Join(f.generic, ", "), f.adapter.Name())
		default:
			r.out("  %-9s not found (looked for %s)", f.adapter.Name(), strings.Join(f.names, ", "))
		}
	}
	// An agent with no hooks to wire (Crush) is named too, so a user who
	// runs it sees tma knows it: its screen alone tells its state.
	for _, f := range r.detectScreenOnly() {
		switch {
		case f.path != "":
			r.out("  %-9s found: %s (no hooks to wire: tma reads its screen)", f.name, f.path)
		case len(f.names) > 0:
			r.out("  %-9s not found (looked for %s; no hooks to wire: tma reads its screen)", f.name, strings.Join(f.names, ", "))
		}
	}

	if len(wire) == 0 {
		r.step("2/7", "wire the hooks: no agent found on $PATH, nothing to wire")
	} else {
		r.step("2/7", "wire the hooks of "+strings.Join(names, ", ")+" (as tma install-hooks <agent>)")
		r.installAgents(wire)
	}

	self, _ := os.Executable()
	r.env = install.Env{Getenv: r.e.Getenv, Self: self}
	conf := r.env.TmuxConf(k.Conf, fileExists)
	kc := r.initKeys(k)
	server := r.serverSocket()
	r.step("3/7", "the status line")
	// A daemon keeps @tma_status and every @agent_summary fresh by itself:
	// one running now, one --daemon starts, or the launcher the keys step
	// writes (it starts one with every server that loads the file).
	daemon := k.Daemon || !kc.NoDaemon || (server != "" && r.daemonOf(server).up())
	loaded := r.statusLine(conf, daemon)

	r.step("4/7", "the keybindings (as tma install-keys)")
	r.keys(kc)
	if r.keysWritten || !loaded {
		r.offerReload(conf)
	}

	r.step("5/7", "a resident daemon of another build")
	switch {
	case server == "":
		r.out("  no tmux server to ask")
	case r.daemonOf(server).skewed():
		r.offerRestart(server)
	default:
		r.out("  none (a daemon of this build, or none at all)")
	}
	r.step("6/7", "the daemon (as tma daemon --ensure)")
	switch {
	case k.Daemon:
		r.startDaemon()
	default:
		r.out("  not started: --daemon starts one now; the keybindings' launcher starts one with every server that loads them")
	}

	code := r.exit()
	r.awaitLauncher(server, !kc.NoDaemon)
	r.step("7/7", "tma doctor")
	r.doctor(&doctorCmd{})
	if code != common.ExitOK {
		r.out("tma: init did not finish: a step failed or a change was declined (see above); re-running it applies only what is still missing")
	}
	return code
}

func (r *run) step(n, what string) { r.out("tma: init %s: %s", n, what) }

// terminal reports whether confirmations can be asked on stdin.
func (r *run) terminal() bool {
	f, ok := r.e.Stdin.(interface{ Fd() uintptr })
	return ok && isatty.IsTerminal(f.Fd())
}

// detect looks for every agent install-hooks wires on $PATH, under its
// manifest name and its process_names minus the generic ones. An agent
// with no loaded manifest (disabled in the config, or left out of
// --manifest-dir) is skipped: there is nothing to wire it from.
func (r *run) detect() []found {
	var out []found
	for _, a := range install.Adapters() {
		f := found{adapter: a}
		m := r.loaded.Manifests.Get(a.Name())
		if m == nil {
			f.skip = "skipped: no manifest loaded for it (disabled in the config, or not in --manifest-dir)"
			out = append(out, f)
			continue
		}
		r.lookFor(&f, m)
		out = append(out, f)
	}
	return out
}

// detectScreenOnly looks, as detect does, for the loaded agents whose
// manifest has no [hooks] and which install-hooks has no adapter for.
func (r *run) detectScreenOnly() []found {
	wired := map[string]bool{}
	for _, a := range install.Adapters() {
		wired[a.Name()] = true
	}
	var out []found
	for _, m := range r.loaded.Manifests.All() {
		if wired[m.Name] || m.Hooks != nil {
			continue
		}
		f := found{name: m.Name}
		r.lookFor(&f, m)
		out = append(out, f)
	}
	return out
}

// lookFor looks for m's name and process names on $PATH, the generic ones
// set apart.
func (r *run) lookFor(f *found, m *manifest.Agent) {
	seen := map[string]bool{}
	for _, n := range append([]string{m.Name}, m.ProcessNames...) {
		if n == "" || seen[n] || strings.ContainsRune(n, '/') {
			continue
		}
		seen[n] = true
		if generic(n) {
			f.generic = append(f.generic, n)
			continue
		}
		f.names = append(f.names, n)
		if f.path == "" {
			f.path = r.env.LookPath(n)
		}
	}
}

// statusRE finds `tma status` run from a format (#(tma status),
// #(/usr/bin/tma -L work status --session x)), not tma-status.
var statusRE = regexp.MustCompile(`(?:^|[\s/(])tma(?:\s+-{1,2}[\w-]+(?:=\S*|\s+[^\s-]\S*)?)*\s+status\b`)

// RunsTmaStatus reports whether a tmux format runs `tma status`.
func RunsTmaStatus(format string) bool { return statusRE.MatchString(format) }

// statusSetRE finds a line of a tmux config that sets status-right.
var statusSetRE = regexp.MustCompile(`^\s*set(?:-option)?\s+(?:-[a-zA-Z]+\s+)*status-right(?:\s|$)`)

// optionRE finds tma's counts read from the option the daemon keeps
// (#{E:@tma_status}, #{@tma_status}).
var optionRE = regexp.MustCompile(`#\{(?:E:)?@tma_status\}`)

// ShowsTmaStatus reports whether a tmux format shows tma's counts: by
// running `tma status` or by reading @tma_status.
func ShowsTmaStatus(format string) bool { return RunsTmaStatus(format) || optionRE.MatchString(format) }

// statusLine is step 3: tma never edits status-right, it says whether the
// server's status line (status-right, status-left, status-format[0])
// already shows tma's counts, else the lines to add, where and how to
// reload. With a daemon the lines read the options it keeps (no process
// per redraw); without one, #(tma status) is the driver itself. It reports
// false when the config shows the counts and the server has not loaded it.
func (r *run) statusLine(conf string, daemon bool) (loaded bool) {
	c := r.client()
	ctx := common.Background()
	serverUp, serverHas := false, ""
	for _, opt := range []string{"status-right", "status-left", "status-format[0]"} {
		v, _, err := c.Run(ctx, "", "show-options", "-gqv", opt)
		if err != nil {
			break
		}
		serverUp = true
		if ShowsTmaStatus(v) {
			serverHas = opt
			break
		}
	}
	pconf := r.env.Pretty(conf)
	data, _ := os.ReadFile(conf)
	confHas, setLine := false, 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if strings.Contains(l, "status") && ShowsTmaStatus(l) {
			confHas = true
		}
		if setLine == 0 && statusSetRE.MatchString(l) {
			setLine = i + 1
		}
	}
	reload := r.reloadCommand(pconf)
	switch {
	case serverHas != "":
		r.out("tma: your %s already shows tma's counts on %s: nothing to add", serverHas, r.socket(c))
	case confHas && serverUp:
		r.out("tma: %s shows tma's counts but the server on %s has not loaded it: reload with `%s`", pconf, r.socket(c), reload)
		return false
	case confHas:
		r.out("tma: %s already shows tma's counts in a status line (no tmux server on %s to check it against)", pconf, r.socket(c))
	case daemon:
		r.out("tma: nothing shows tma's counts in your status line yet; tma never edits status-right. The daemon (the keybindings' launcher starts one with every server) keeps them in @tma_status, and each window's in @agent_summary, so the status line reads options and runs no process per redraw. Add these lines to %s:", pconf)
		r.out("  set -g status-right '#{E:@tma_status} %%H:%%M'")
		r.out("  set -g window-status-format '#I:#W#{?@agent_summary, #{@agent_summary},}'")
		r.out("  set -g window-status-current-format '#I:#W#{?@agent_summary, #{@agent_summary},}'")
		if setLine > 0 {
			r.out("  (%s sets status-right already, on line %d: you can put `#{E:@tma_status} ` at the front of that format instead)", pconf, setLine)
		}
		r.out("  (with no daemon running nothing refreshes them: `#(tma status)` in place of `#{E:@tma_status}` drives the state itself, one process per redraw)")
		r.out("then reload it: %s", reload)
	default:
		r.out("tma: nothing runs `tma status` in your status line yet (the ambient state driver; no daemon will keep the counts for you); tma never edits status-right. Add this line to %s:", pconf)
		r.out("  set -g status-right '#(tma status) %%H:%%M'")
		if setLine > 0 {
			r.out("  (%s sets status-right already, on line %d: you can put `#(tma status) ` at the front of that format instead)", pconf, setLine)
		}
		r.out("then reload it: %s", reload)
	}
	return true
}

// offerReload asks to reload the tmux config on the server now, so the
// keys just written (and a status line already in the config) take effect
// without the user typing the command; no is not a failure.
func (r *run) offerReload(conf string) {
	if !r.serverUp() {
		return // no server to reload (source-file would start one)
	}
	c := r.client()
	ctx := common.Background()
	if _, err := os.Stat(conf); err != nil {
		return
	}
	pconf := r.env.Pretty(conf)
	cmd := r.reloadCommand(pconf)
	if !r.ask(fmt.Sprintf("Reload %s on %s now (`%s`)?", pconf, r.socket(c), cmd)) {
		r.out("tma: not reloaded: `%s` when you are ready", cmd)
		return
	}
	if _, stderr, err := c.Run(ctx, "", "source-file", conf); err != nil {
		r.out("tma: tmux reported while reloading %s: %s", pconf, strings.TrimSpace(stderr+" "+err.Error()))
		return
	}
	r.reloaded = true
	r.out("tma: reloaded %s on %s", pconf, r.socket(c))
}

// LauncherWait bounds how long init waits, before its doctor step, for the
// daemon a reloaded config's launcher starts (run-shell -b: the reload
// returns before the daemon has its socket).
const LauncherWait = 3 * time.Second

// awaitLauncher waits for the daemon the keys' launcher starts on a reload,
// so step 7's doctor reports the daemon the user will have, not the instant
// before it. No reload, no launcher, or a daemon already up: no wait.
func (r *run) awaitLauncher(server string, launcher bool) {
	if !r.reloaded || !launcher || server == "" || r.daemonOf(server).up() {
		return
	}
	for deadline := time.Now().Add(LauncherWait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if r.daemonOf(server).hello != nil {
			return
		}
	}
}

// reloadCommand is the tmux command that re-reads conf on the server tma
// talks to: bare inside tmux or for the default server, else with the
// socket flag the globals or TMA_SOCKET_PATH named.
func (r *run) reloadCommand(conf string) string {
	args := []string{"tmux"}
	if r.g.SocketName != "" || r.g.SocketPath != "" || r.e.Getenv("TMA_SOCKET_PATH") != "" {
		for _, a := range r.client().Target.Args() {
			args = append(args, install.ShellWord(a))
		}
	}
	return strings.Join(append(args, "source-file", conf), " ")
}

// initKeys is install-keys with the choices an earlier install-keys made:
// a managed file carrying the mouse bindings keeps them, one without the
// daemon launcher stays without it, so re-running init never undoes
// `install-keys --mouse` or `--no-daemon`.
func (r *run) initKeys(k *initCmd) *keysCmd {
	kc := &keysCmd{Yes: k.Yes, ConfigDir: k.ConfigDir, Conf: k.Conf}
	dir, _ := r.env.KeysDir(k.ConfigDir)
	if old, existed, _, err := install.ReadFile(filepath.Join(dir, "tmux.conf")); err == nil && existed {
		kc.Mouse = bytes.Contains(old, []byte(install.MouseMark))
		kc.NoDaemon = !bytes.Contains(old, []byte(install.DaemonMark))
	}
	return kc
}
