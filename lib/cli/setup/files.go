package setupcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/bininstall"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/pick"
	"github.com/tmaproject/tma/shell"
)

type installFilesCmd struct {
	From   string   `name:"from" required:"" placeholder:"DIR" help:"the directory holding the built files (bin/ in a checkout)."`
	BinDir string   `name:"bindir" required:"" placeholder:"DIR" help:"where to install them (made when missing)."`
	Fzf    string   `name:"fzf" placeholder:"PATH" help:"the pinned fzf to install as fzf in --bindir when the one there is missing, older than 0.65, or one tma installed."`
	Names  []string `arg:"" help:"the files to install from --from (tma and the tma-* tools)."`
}

type installDispatcherCmd struct {
	BinDir string `name:"bindir" placeholder:"DIR" help:"where to write tma (default: the directory of this tma-setup, where go install put the tools)."`
	Force  bool   `name:"force" help:"replace a tma there that is not tma's dispatcher."`
}

// dispatcherMark begins every version of shell/tma: what tells tma's
// dispatcher from another program named tma.
var dispatcherMark = []byte("#!/bin/sh\n# tma: the dispatcher.")

// installFiles is what `make install` runs (from bin/, the build it
// installs): every file written beside its name, then all renamed (lib/
// bininstall), the fzf decision, the record, then the daemons the old
// build left running replaced, and a PATH hint.
func installFiles(e *common.Env, c *installFilesCmd) int {
	bindir, err := filepath.Abs(c.BinDir)
	if err != nil {
		e.Errorf("--bindir: %v", err)
		return common.ExitFail
	}
	env := install.Env{Getenv: e.Getenv}
	recPath := filepath.Join(env.ConfigDir(), bininstall.RecordName)
	rec, err := bininstall.LoadRecord(recPath)
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	var srcs []bininstall.Source
	for _, n := range c.Names {
		srcs = append(srcs, bininstall.Source{Name: n, From: filepath.Join(c.From, n)})
	}
	prev := rec.For(bindir)
	fzfOurs := prev != nil && prev.Fzf
	fzfNote := ""
	if c.Fzf != "" {
		if v, err := pick.Version(c.Fzf); err != nil || !pick.NewEnough(v) {
			e.Errorf("--fzf %s: not an fzf 0.65 or newer (%v)", c.Fzf, orVersion(v, err))
			return common.ExitFail
		}
		there := filepath.Join(bindir, "fzf")
		v, verr := pick.Version(there)
		_, serr := os.Stat(there)
		switch {
		case errors.Is(serr, fs.ErrNotExist):
			fzfOurs = true
			fzfNote = "fzf (the picker's; none was in " + bindir + ")"
		case fzfOurs:
			fzfNote = "fzf (the one tma installed before)"
		case verr == nil && pick.NewEnough(v):
			fzfNote = ""
			fmt.Fprintf(e.Stdout, "tma: keeping %s (fzf %s, not tma's: uninstall leaves it)\n", there, v)
		default:
			fzfOurs = true
			fzfNote = fmt.Sprintf("fzf (replacing %s, fzf %s: the picker needs 0.65 or newer)", there, orVersion(v, verr))
		}
		if fzfOurs {
			srcs = append(srcs, bininstall.Source{Name: "fzf", From: c.Fzf})
		}
	}
	created, err := mkdirs(bindir)
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	st, err := bininstall.Stage(bindir, srcs)
	if err != nil {
		e.Errorf("%v\nnothing was replaced in %s", err, bindir)
		return common.ExitFail
	}
	if err := st.Commit(); err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	fmt.Fprintf(e.Stdout, "tma: installed %s into %s\n", strings.Join(c.Names, " "), bindir)
	if fzfNote != "" {
		fmt.Fprintf(e.Stdout, "tma: installed %s\n", fzfNote)
	}
	in := rec.Ensure(bindir)
	in.Add(c.Names...)
	if fzfOurs {
		in.Add("fzf")
	}
	in.Fzf = fzfOurs
	if created != "" && in.Created == "" {
		in.Created = created
	}
	in.InstalledAt = time.Now().UTC().Truncate(time.Second)
	if err := rec.Save(recPath); err != nil {
		e.Errorf("the install record %s: %v", recPath, err)
		return common.ExitFail
	}
	code := replaceDaemons(e, bindir)
	pathHint(e, bindir)
	if prev == nil {
		fmt.Fprintln(e.Stdout, "tma: next: tma init (wires the agents it finds, the keys and the status line; shows each diff first)")
	}
	return code
}

func orVersion(v string, err error) string {
	if err != nil {
		return err.Error()
	}
	return v
}

// mkdirs makes dir and returns the topmost directory it had to create
// ("" when dir existed), for uninstall to remove when it is left empty.
func mkdirs(dir string) (string, error) {
	top := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		top = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return top, nil
}

// replaceDaemons is the upgrade's last step: each daemon of this user that
// runs the tma-daemon this install just replaced is restarted from the new
// one, by [daemon] restart_on_upgrade (default on; off: it is named and
// left). No question is asked: make install runs without a terminal as
// often as with one, and the setting is the user's answer. Where the
// system does not say what a process executes (not Linux), a daemon of an
// older version is replaced and one of the same version named.
func replaceDaemons(e *common.Env, bindir string) int {
	code := common.ExitOK
	for _, d := range bininstall.Daemons(e.Getenv) {
		exe := bininstall.ExeOf(d.PID)
		switch {
		case exe.Known && (!exe.From(bindir, "tma-daemon") || !exe.Replaced):
			continue
		case !exe.Known && !daemon.Newer(common.Version, d.Version):
			if d.Version == common.Version {
				fmt.Fprintf(e.Stdout, "tma: a daemon of this version runs for %s (pid %d); if it is the build just replaced, `tma -S %s daemon --restart` puts this one in its place\n", d.Server, d.PID, install.ShellWord(d.Server))
			}
			continue
		}
		globals := exe.Globals()
		cfgPath := ""
		for i := 0; i+1 < len(globals); i += 2 {
			if globals[i] == "--config" {
				cfgPath = globals[i+1]
			}
		}
		if cfg, _, err := config.LoadResolved(cfgPath, config.Env(e.Lookup)); err == nil && !cfg.Daemon.RestartOnUpgrade {
			fmt.Fprintf(e.Stdout, "tma: the daemon for %s (pid %d) still runs the build installed before; [daemon] restart_on_upgrade is off, so it was left: `tma -S %s daemon --restart` replaces it\n", d.Server, d.PID, install.ShellWord(d.Server))
			continue
		}
		args := append([]string{"--socket-path", d.Server}, globals...)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := daemon.Restart(ctx, filepath.Join(bindir, "tma-daemon"), args, exe.Env) // Env nil (unknown): this process's
		cancel()
		if err != nil {
			e.Errorf("replacing the daemon for %s (pid %d): %v\n%s", d.Server, d.PID, err, bytes.TrimSpace(out))
			code = common.ExitFail
			continue
		}
		now := "this build"
		if r, _ := daemon.Find(d.Paths); r != nil {
			now = fmt.Sprintf("pid %d", r.PID)
		}
		fmt.Fprintf(e.Stdout, "tma: replaced the daemon for %s (pid %d, the build installed before) with this build (%s)\n", d.Server, d.PID, now)
	}
	return code
}

// pathHint says how to put bindir on PATH when it is not there.
func pathHint(e *common.Env, bindir string) {
	if bininstall.OnPath(bindir, e.Getenv("PATH")) {
		return
	}
	home := e.Getenv("HOME")
	shown := bindir
	if home != "" && strings.HasPrefix(bindir, home+"/") {
		shown = "$HOME" + bindir[len(home):]
	}
	fmt.Fprintf(e.Stdout, "tma: %s is not on your PATH; add it (to ~/.profile, ~/.bashrc or ~/.zshrc):\n  export PATH=\"%s:$PATH\"\nand restart tmux (`tmux kill-server`) so new panes and the agents in them find tma-hook\n", bindir, shown)
}

// installDispatcher is `tma-setup install-dispatcher`: the dispatcher of
// this build written as tma beside the tools (go install places the Go
// binaries only), atomically, and recorded for uninstall.
func installDispatcher(e *common.Env, c *installDispatcherCmd) int {
	bindir := c.BinDir
	if bindir == "" {
		self, err := os.Executable()
		if err != nil {
			e.Errorf("cannot tell where this tma-setup is (%v): pass --bindir", err)
			return common.ExitFail
		}
		bindir = filepath.Dir(self)
	}
	bindir, err := filepath.Abs(bindir)
	if err != nil {
		e.Errorf("--bindir: %v", err)
		return common.ExitFail
	}
	target := filepath.Join(bindir, "tma")
	old, err := os.ReadFile(target)
	switch {
	case err == nil && bytes.Equal(old, shell.Dispatcher):
		fmt.Fprintf(e.Stdout, "tma: %s is already this version's dispatcher\n", target)
		pathHint(e, bindir)
		return common.ExitOK
	case err == nil && !bytes.HasPrefix(old, dispatcherMark) && !c.Force:
		e.Errorf("%s exists and is not tma's dispatcher: left as it is (--force replaces it)", target)
		return common.ExitFail
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		e.Errorf("%s: %v", target, err)
		return common.ExitFail
	}
	if _, err := os.Stat(filepath.Join(bindir, "tma-setup")); err != nil {
		fmt.Fprintf(e.Stderr, "tma: warning: no tma-setup in %s: the dispatcher runs the tools beside it first, then those on PATH\n", bindir)
	}
	created, err := mkdirs(bindir)
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	st, err := bininstall.Stage(bindir, []bininstall.Source{{Name: "tma", Data: shell.Dispatcher}})
	if err == nil {
		err = st.Commit()
	}
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	fmt.Fprintf(e.Stdout, "tma: wrote the dispatcher %s (version %s)\n", target, common.Version)
	env := install.Env{Getenv: e.Getenv}
	recPath := filepath.Join(env.ConfigDir(), bininstall.RecordName)
	rec, err := bininstall.LoadRecord(recPath)
	if err == nil {
		in := rec.Ensure(bindir)
		in.Add("tma")
		if created != "" && in.Created == "" {
			in.Created = created
		}
		in.InstalledAt = time.Now().UTC().Truncate(time.Second)
		err = rec.Save(recPath)
	}
	if err != nil {
		e.Errorf("the install record: %v", err)
		return common.ExitFail
	}
	pathHint(e, bindir)
	return common.ExitOK
}
