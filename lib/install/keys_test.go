package install

import (
	"testing"
)

func TestSourceLineRoundTrip(t *testing.T) {
	line := SourceLine("", false)
	for _, conf := range []string{"", "set -g mouse on\n", "set -g mouse on", "a\n\n\nb\n", "x\n" + line + "\ny\n"} {
		with := WithSourceLine([]byte(conf), line)
		if n, cur := MarkedLines(with, line); n != 1 || !cur {
			t.Errorf("%q: %d marked lines after install", conf, n)
		}
		if again := WithSourceLine(with, line); string(again) != string(with) {
			t.Errorf("%q: install is not idempotent: %q", conf, again)
		}
		back := string(WithoutSourceLine(with))
		want := conf
		if conf == "x\n"+line+"\ny\n" {
			want = "x\ny\n"
		}
		if back != want {
			t.Errorf("%q: uninstall gave %q", conf, back)
		}
	}
	// A stale marked line is replaced in place; duplicates are dropped.
	got := string(WithSourceLine([]byte("a\nsource-file old # tma keys\nb\nsource-file x # tma keys\n"), line))
	if got != "a\n"+line+"\nb\n" {
		t.Errorf("replace = %q", got)
	}
	if l := SourceLine(`/a b/$x"`, true); l != `source-file -q "/a b/\$x\"/tmux.conf" # tma keys` {
		t.Errorf("pinned line = %s", l)
	}
}

func TestTmuxConfChoice(t *testing.T) {
	env := func(vars map[string]string) Env { return Env{Getenv: func(k string) string { return vars[k] }} }
	e := env(map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"})
	have := map[string]bool{}
	exists := func(p string) bool { return have[p] }
	if got := e.TmuxConf("", exists); got != "/x/tmux/tmux.conf" {
		t.Errorf("none, xdg set: %s", got)
	}
	have["/h/.config/tmux/tmux.conf"] = true
	if got := e.TmuxConf("", exists); got != "/h/.config/tmux/tmux.conf" {
		t.Errorf("only ~/.config/tmux: %s", got)
	}
	have["/h/.tmux.conf"] = true
	if got := e.TmuxConf("", exists); got != "/h/.tmux.conf" {
		t.Errorf("~/.tmux.conf first: %s", got)
	}
	e = env(map[string]string{"HOME": "/h"})
	if got := e.TmuxConf("", func(string) bool { return false }); got != "/h/.tmux.conf" {
		t.Errorf("nothing at all: %s", got)
	}
	if got := e.TmuxConf("", func(p string) bool { return p == "/h/.config" }); got != "/h/.config/tmux/tmux.conf" {
		t.Errorf("~/.config present: %s", got)
	}
	if got := e.TmuxConf("~/t.conf", exists); got != "/h/t.conf" {
		t.Errorf("--conf: %s", got)
	}
}
