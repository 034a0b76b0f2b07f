// Package boundary enforces the package rules: only lib/tmux runs tmux, only
// the packages allowed to spawn programs import os/exec, and lib/fold and
// lib/watch do no I/O.
package boundary

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func root(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// imports maps each non-test Go file under lib/ and cmd/ to its imports.
func imports(t *testing.T) map[string][]string {
	out := map[string][]string{}
	r := root(t)
	for _, top := range []string{"lib", "cmd"} {
		err := filepath.Walk(filepath.Join(r, top), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(r, p)
			for _, im := range f.Imports {
				v, _ := strconv.Unquote(im.Path.Value)
				out[rel] = append(out[rel], v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Packages allowed to run external programs, and which ones.
var spawners = map[string]string{
	"lib/tmux":              "tmux",
	"lib/tmux/spawn":        "tmux, every one-shot call, by syscall.ForkExec (no os/exec: its first start forks a pidfd probe)",
	"lib/proc":              "ps, where there is no /proc",
	"lib/gitinfo":           "git, one bounded call per directory",
	"lib/testkit":           "tmux and go build, for tests only",
	"lib/pick":              "fzf for the picker (executed, never linked); the dispatcher's act --menu for the picker and watch",
	"lib/act/child":         "sh -c <command> for an exec action, under its deadline; the detached supervisor (tma-act supervise) of a detach = true one",
	"lib/notify":            "the [notify] command (sh -c, under its bound) and tma-notify, the supervisor a fire hands it to",
	"lib/daemon":            "a detached tma-daemon a hot path starts without waiting (autostart, restart_on_upgrade); the tma-daemon --restart an install waits for",
	"lib/daemon/serve":      "the daemon's own pipeline stages (tma-scan, tma-fold, tma-stamp), the web face it hosts (tma-serve --http) and a detached tma-daemon for --ensure",
	"lib/testkit/fakeagent": "nothing, but it is a test program",
	"lib/serve":             "tma-transcript for a window page (RunReader): a process of its own, so tma-serve links no SQLite driver",
	"lib/remote":            "a [[remote]] entry's command (ssh to a host's tma serve), in its own group, killed at its timeout",
	"lib/sshguard":          "this host's tma attach, exec'd in place of serve for a forced command's checked attach --pane (its words checked, only the pane id the client's)",
}

func TestOnlyAllowedPackagesSpawn(t *testing.T) {
	for file, ims := range imports(t) {
		dir := filepath.ToSlash(filepath.Dir(file))
		for _, im := range ims {
			if im == "os/exec" {
				if _, ok := spawners[dir]; !ok {
					t.Errorf("%s imports os/exec: only %v may run programs", file, keys(spawners))
				}
			}
		}
	}
}

// A program can be started without os/exec: the same rule holds for the
// calls that fork or exec directly.
func TestOnlyAllowedPackagesForkOrExec(t *testing.T) {
	r := root(t)
	calls := []string{"syscall.ForkExec(", "syscall.StartProcess(", "os.StartProcess(", "syscall.Exec(", "unix.Exec("}
	for file := range imports(t) {
		b, err := os.ReadFile(filepath.Join(r, file))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.ToSlash(filepath.Dir(file))
		for _, c := range calls {
			if _, ok := spawners[dir]; !ok && strings.Contains(string(b), c) {
				t.Errorf("%s calls %s: only %v may run programs", file, strings.TrimSuffix(c, "("), keys(spawners))
			}
		}
	}
}

func TestOnlyLibTmuxRunsTmux(t *testing.T) {
	r := root(t)
	for file := range imports(t) {
		dir := filepath.ToSlash(filepath.Dir(file))
		if dir == "lib/tmux" || strings.HasPrefix(dir, "lib/testkit") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(r, file))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `exec.Command("tmux"`) || strings.Contains(string(b), `exec.CommandContext(ctx, "tmux"`) {
			t.Errorf("%s runs tmux itself: go through lib/tmux", file)
		}
	}
}

// pure are the packages that do no I/O and read no clock, and why.
var pure = map[string]string{
	"lib/fold":  "the fold is pure (time travels in the records)",
	"lib/watch": "watch's model is pure (the terminal, the clock and the captures are lib/cli/pick's)",
}

func TestPurePackagesDoNoIO(t *testing.T) {
	banned := []string{"os", "os/exec", "io/ioutil", "net", "net/http", "syscall", "time", "github.com/tmaproject/tma/lib/tmux", "github.com/tmaproject/tma/lib/proc"}
	checked := map[string]int{}
	for file, ims := range imports(t) {
		dir := filepath.ToSlash(filepath.Dir(file))
		why, ok := pure[dir]
		if !ok {
			continue
		}
		checked[dir]++
		for _, im := range ims {
			for _, b := range banned {
				if im == b {
					t.Errorf("%s imports %s: %s", file, im, why)
				}
			}
		}
	}
	for dir := range pure {
		if checked[dir] == 0 {
			t.Errorf("no %s sources found", dir)
		}
	}
}

func TestEveryLibPackageHasDoc(t *testing.T) {
	r := root(t)
	dirs := map[string]bool{}
	for file := range imports(t) {
		if strings.HasPrefix(file, "lib"+string(filepath.Separator)) {
			dirs[filepath.Dir(file)] = true
		}
	}
	for d := range dirs {
		if strings.HasSuffix(d, "fakeagent") {
			continue
		}
		if _, err := os.Stat(filepath.Join(r, d, "doc.go")); err != nil {
			t.Errorf("%s has no doc.go", d)
		}
	}
}

func TestMainsAreThin(t *testing.T) {
	r := root(t)
	mains, _ := filepath.Glob(filepath.Join(r, "cmd", "*", "main.go"))
	if len(mains) == 0 {
		t.Fatal("no mains")
	}
	for _, m := range mains {
		b, _ := os.ReadFile(m)
		if n := strings.Count(string(b), "\n"); n > 15 {
			t.Errorf("%s is %d lines: a main calls lib/cli/<tool>.Run and nothing else", m, n)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// early are the packages an init function runs (prelist, prebatch) and
// what they stand on: Go runs that init as soon as its imports are ready,
// so each imports standard packages and only the tma packages named here,
// none of which has a costly init.
var early = map[string][]string{
	"lib/tmux/spawn":        nil,
	"lib/tmux/listcall":     {"lib/tmux/spawn"},
	"lib/daemon/daemonpath": nil,
	"lib/tmux/prelist":      {"lib/tmux/listcall"},
	"lib/tmux/prebatch":     {"lib/tmux/listcall", "lib/daemon/daemonpath"},
}

func TestEarlyPackagesStayLeaves(t *testing.T) {
	const mod = "github.com/tmaproject/tma/"
	for file, ims := range imports(t) {
		dir := filepath.ToSlash(filepath.Dir(file))
		allowed, ok := early[dir]
		if !ok {
			continue
		}
		for _, im := range ims {
			first, _, _ := strings.Cut(im, "/")
			if !strings.Contains(first, ".") {
				continue // a standard package
			}
			if !strings.HasPrefix(im, mod) || !slices.Contains(allowed, strings.TrimPrefix(im, mod)) {
				t.Errorf("%s imports %s: an early package imports only standard packages and %v", file, im, allowed)
			}
		}
	}
}
