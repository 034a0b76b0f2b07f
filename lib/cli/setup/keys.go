package setupcmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/pick"
)

type keysCmd struct {
	Print     bool   `name:"print" help:"write nothing: print the tmux commands that bind the keys, as tma.tmux (the TPM plugin) binds them: the server's @tma-key-<name> options over [keys] over the defaults, the mouse group with @tma-mouse on (or --mouse), no daemon launcher."`
	Check     bool   `name:"check" help:"verify: the managed file is current and your tmux config sources it exactly once (exit 1 on drift)."`
	Uninstall bool   `name:"uninstall" help:"remove the managed file and the marked source-file line, nothing else."`
	Yes       bool   `name:"yes" short:"y" help:"apply without asking."`
	Mouse     bool   `name:"mouse" help:"add the four status-line click bindings (needs set -g mouse on, which tma never sets); with --check, require them."`
	NoDaemon  bool   `name:"no-daemon" help:"leave out the daemon launcher line; with --check, require its absence."`
	ConfigDir string `name:"config-dir" placeholder:"DIR" help:"where the managed tmux.conf lives (env TMA_CONFIG_DIR; default $XDG_CONFIG_HOME/tma, ~/.config/tma); the source line then names it literally."`
	Conf      string `name:"conf" placeholder:"PATH" help:"the tmux config that gets the source-file line (default: the first of ~/.tmux.conf, $XDG_CONFIG_HOME/tmux/tmux.conf, ~/.config/tmux/tmux.conf that exists)."`
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// keys is one install-keys invocation, on install-hooks' diff, confirm and
// atomic-write flow (run.apply; r.h carries --yes).
func (r *run) keys(k *keysCmd) int {
	if k.Check && k.Uninstall || k.Print && (k.Check || k.Uninstall) {
		return r.usage("--check, --uninstall and --print are exclusive")
	}
	self, _ := os.Executable()
	r.env = install.Env{Getenv: r.e.Getenv, Self: self}
	dir, pinned := r.env.KeysDir(k.ConfigDir)
	managed := filepath.Join(dir, "tmux.conf")
	conf := r.env.TmuxConf(k.Conf, fileExists)
	line := install.SourceLine(dir, pinned)

	mOld, mExisted, mMode, err := install.ReadFile(managed)
	if err != nil {
		r.e.Errorf("%s: %v", r.env.Pretty(managed), err)
		return common.ExitFail
	}
	cOld, cExisted, cMode, err := install.ReadFile(conf)
	if err != nil {
		r.e.Errorf("%s: %v", r.env.Pretty(conf), err)
		return common.ExitFail
	}
	if k.Uninstall {
		return r.keysUninstall(managed, conf, mExisted, cOld, cExisted, cMode)
	}
	spec, err := r.keysSpec(self)
	if err != nil {
		r.e.Errorf("%v", err)
		return common.ExitFail
	}
	if k.Check {
		return r.keysCheck(k, spec, managed, conf, line, mOld, mExisted, cOld)
	}
	if k.Print {
		return r.keysPrint(k, spec)
	}

	spec.Mouse, spec.Daemon = k.Mouse, !k.NoDaemon
	want := install.KeysFile(spec)
	var changes []install.Change
	if !mExisted || !bytes.Equal(mOld, want) {
		changes = append(changes, install.Change{Path: managed, What: "tma keybindings", Old: mOld, Existed: mExisted, Mode: keepMode(mMode, mExisted), New: want,
			Notes: install.Shadowed(spec, r.boundNow(conf, cOld))})
	}
	if cNew := install.WithSourceLine(cOld, line); !cExisted || !bytes.Equal(cNew, cOld) {
		changes = append(changes, install.Change{Path: conf, What: "tma keys source-file", Old: cOld, Existed: cExisted, Mode: keepMode(cMode, cExisted), New: cNew})
	}
	if len(changes) == 0 {
		r.out("tma: keybindings already installed (%s, sourced from %s)", r.env.Pretty(managed), r.env.Pretty(conf))
	} else {
		_, all := r.apply("keys", changes)
		r.keysWritten = all
		if !all {
			return r.exit()
		}
		r.out("tma: installed keybindings (%s). Reload with `tmux source-file %s`.", r.env.Pretty(managed), r.env.Pretty(conf))
	}
	if !r.inInit {
		// The launcher's daemon keeps @tma_status: the status line can read
		// it and run no process per redraw (init's step 3 says the same).
		if spec.Daemon {
			r.out("tma: reminder: add `#{E:@tma_status}` to your `status-right` for tma's counts: the daemon the launcher starts keeps it, with no process per redraw (with no daemon running, `#(tma status)` is the ambient state driver instead; tma does not edit status-right).")
		} else {
			r.out("tma: reminder: add `#(tma status)` to your `status-right` for the ambient state driver (tma does not edit status-right).")
		}
	}
	return r.exit()
}

// boundNow is what the keys are bound to before this install: the
// server's tables when one answers, else the bind lines of the tmux config
// that will source the file (what the next server start binds before it).
func (r *run) boundNow(conf string, confData []byte) []install.Bound {
	if r.serverUp() {
		if out, _, err := r.client().Run(common.Background(), "", "list-keys"); err == nil {
			return install.ParseListKeys(out)
		}
	}
	return install.ParseConfBinds(confData)
}

// serverUp asks with a command that needs a running server: list-keys and
// source-file start one (loading the user's config) when there is none.
func (r *run) serverUp() bool {
	_, _, err := r.client().Run(common.Background(), "", "show-options", "-gqv", "status")
	return err == nil
}

// keysSpec is what this tma binds: itself by its absolute path (the
// dispatcher beside self, spelled as $PATH finds it when that is the same
// file), on the keys the config's [keys] chooses. A tma the bindings cannot
// name by path is bound by its bare name, with a note.
func (r *run) keysSpec(self string) (install.KeysSpec, error) {
	if r.loaded == nil {
		l, err := r.g.Load(r.e)
		if err != nil {
			return install.KeysSpec{}, err
		}
		r.loaded = l
	}
	keys, err := install.ResolveKeys(r.loaded.Config.Keys.Chosen(), "[keys] ")
	if err != nil {
		where := r.loaded.ConfigPath
		if where == "" {
			where = "config"
		}
		return install.KeysSpec{}, fmt.Errorf("%s: %v", where, err)
	}
	beside := ""
	if self != "" {
		if p := filepath.Join(filepath.Dir(self), "tma"); install.IsExec(p) {
			beside = p
		}
	}
	prog, why := install.TmaProgram(beside, r.env.LookPath("tma"), install.SameFile)
	if why != "" && !r.keysNoted {
		r.keysNoted = true
		r.out("tma: note: the bindings call `tma` by name, from the tmux server's PATH: %s", why)
	}
	return install.KeysSpec{Tma: prog, Keys: keys}, nil
}

func orBare(p string) string {
	if p == "" {
		return "`tma` from PATH"
	}
	return p
}

// keysPrint is --print: the bindings as the TPM plugin binds them, from
// the tmux options a TPM user sets (@tma-key-<name>, @tma-mouse) over the
// config's [keys]. The plugin starts the daemon itself, so no launcher.
func (r *run) keysPrint(k *keysCmd, spec install.KeysSpec) int {
	opts := map[string]string{}
	if r.serverUp() {
		out, _, err := r.client().Run(common.Background(), "", "show-options", "-g")
		if err == nil {
			opts = install.ParseShowOptions(out, "@tma-")
		}
	}
	chosen := map[string]string{}
	for name, key := range spec.Keys {
		chosen[name] = key
	}
	for o, v := range opts {
		if name, ok := strings.CutPrefix(o, "@tma-key-"); ok {
			chosen[name] = config.NormalKey(v)
		}
	}
	keys, err := install.ResolveKeys(chosen, "@tma-key-")
	if err != nil {
		r.e.Errorf("%v", err)
		return common.ExitFail
	}
	spec.Keys, spec.Daemon = keys, false
	spec.Mouse = k.Mouse || opts["@tma-mouse"] == "on"
	// What these bindings replace goes to stderr, one line each: the
	// plugin shows it, as install-keys' diff names it.
	for _, n := range install.Shadowed(spec, r.boundNow("", nil)) {
		fmt.Fprintln(r.e.Stderr, n)
	}
	_, _ = r.e.Stdout.Write(install.KeysFile(spec))
	return common.ExitOK
}

// keepMode keeps an existing file's mode; a new tmux config or managed file
// is 0644 like any dotfile (nothing in it is private).
func keepMode(m os.FileMode, existed bool) os.FileMode {
	if existed {
		return m
	}
	return 0o644
}

func (r *run) keysCheck(k *keysCmd, spec install.KeysSpec, managed, conf, line string, mOld []byte, mExisted bool, cOld []byte) int {
	var problems []string
	daemon := !k.NoDaemon
	file := func(mouse, daemon bool) []byte {
		s := spec
		s.Mouse, s.Daemon = mouse, daemon
		return install.KeysFile(s)
	}
	switch prog := install.ManagedProgram(mOld); {
	case !mExisted:
		problems = append(problems, fmt.Sprintf("%s is missing", r.env.Pretty(managed)))
	case bytes.Equal(mOld, file(true, daemon)):
	case !k.Mouse && bytes.Equal(mOld, file(false, daemon)):
	case k.Mouse && bytes.Equal(mOld, file(false, daemon)):
		problems = append(problems, fmt.Sprintf("%s lacks the mouse bindings (install with --mouse)", r.env.Pretty(managed)))
	case prog != "" && prog != spec.Tma && !(prog == "tma" && spec.Tma == ""):
		problems = append(problems, fmt.Sprintf("%s runs %s, not this tma (%s): written by another install, or before tma wrote its path", r.env.Pretty(managed), prog, orBare(spec.Tma)))
	case bytes.Equal(mOld, file(k.Mouse, !daemon)) || bytes.Equal(mOld, file(!k.Mouse, !daemon)):
		if daemon {
			problems = append(problems, fmt.Sprintf("%s lacks the daemon launcher line (pass --check --no-daemon if you installed with --no-daemon)", r.env.Pretty(managed)))
		} else {
			problems = append(problems, fmt.Sprintf("%s carries the daemon launcher line (installed without --no-daemon)", r.env.Pretty(managed)))
		}
	default:
		problems = append(problems, fmt.Sprintf("%s differs from this tma's bindings (edited by hand, or written by another version)", r.env.Pretty(managed)))
	}
	switch n, cur := install.MarkedLines(cOld, line); {
	case n == 0:
		problems = append(problems, fmt.Sprintf("%s does not source the keybindings (no `%s` line)", r.env.Pretty(conf), install.KeysMarker))
	case n > 1:
		problems = append(problems, fmt.Sprintf("%s sources the keybindings %d times", r.env.Pretty(conf), n))
	case !cur:
		problems = append(problems, fmt.Sprintf("%s has a stale `%s` line (want: %s)", r.env.Pretty(conf), install.KeysMarker, line))
	}
	if len(problems) == 0 {
		r.out("tma: keys OK (%s, sourced from %s)", r.env.Pretty(managed), r.env.Pretty(conf))
		return common.ExitOK
	}
	r.out("tma: keybindings not installed as expected:")
	for _, p := range problems {
		r.out("  - %s", p)
	}
	r.out("run `tma install-keys` to reinstall")
	return common.ExitFail
}

func (r *run) keysUninstall(managed, conf string, mExisted bool, cOld []byte, cExisted bool, cMode os.FileMode) int {
	var changes []install.Change
	if mExisted {
		old, _ := os.ReadFile(managed)
		changes = append(changes, install.Change{Path: managed, What: "tma keybindings", Old: old, Existed: true, Remove: true})
	}
	lineLeft := false
	if cExisted {
		if cNew := install.WithoutSourceLine(cOld); !bytes.Equal(cNew, cOld) {
			changes = append(changes, install.Change{Path: conf, What: "tma keys source-file", Old: cOld, Existed: true, Mode: cMode, New: cNew})
			lineLeft = true
		}
	}
	if len(changes) == 0 {
		r.out("tma: no keybindings to remove")
		return common.ExitOK
	}
	for _, ch := range changes {
		if _, all := r.apply("keys", []install.Change{ch}); all && ch.Path == conf {
			lineLeft = false
		}
	}
	if lineLeft {
		r.e.Errorf("the source-file line is still in %s: remove the line ending in `%s` by hand", r.env.Pretty(conf), install.KeysMarker)
		return common.ExitFail
	}
	if r.exit() == common.ExitOK {
		r.out("tma: uninstalled keybindings. Reload tmux or restart it to drop bindings already loaded.")
	}
	return r.exit()
}

// FzfDoctorLine is the `fzf:` line for `tma doctor` (the picker needs it;
// watch draws itself): the fzf tma would run and its version, or what is missing
// and how to fix it. ok is false for a missing or too-old fzf. self is the
// running binary (the pinned fzf is installed beside it).
func FzfDoctorLine(getenv func(string) string, self string) (line string, ok bool) {
	beside := ""
	if self != "" {
		beside = filepath.Dir(self)
	}
	f, err := pick.Find(getenv("PATH"), beside)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), "\nhint: ", " — ")
		return "fzf:     " + strings.TrimPrefix(msg, pick.ErrNoFzf.Error()+": ") + " (the picker needs it)", false
	}
	return fmt.Sprintf("fzf:     %s %s ✓", f.Version, f.Path), true
}
