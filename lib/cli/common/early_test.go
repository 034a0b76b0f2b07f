package common

import (
	"testing"

	"github.com/tmaproject/tma/lib/tmux"
)

// The words a one-shot scan's early list reads, and the ones it leaves to
// kong: anything it cannot be sure of starts nothing.
func TestEarlyTarget(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		args []string
		want tmux.Target
		ok   bool
	}{
		{nil, tmux.Target{}, true},
		{[]string{"-L", "work"}, tmux.Target{SocketName: "work"}, true},
		{[]string{"-Lwork"}, tmux.Target{SocketName: "work"}, true},
		{[]string{"--socket-name=work", "--no-capture"}, tmux.Target{SocketName: "work"}, true},
		{[]string{"--socket-name", "work", "--pane", "%3"}, tmux.Target{SocketName: "work"}, true},
		{[]string{"-S", "/tmp/x", "-L", "work"}, tmux.Target{SocketPath: "/tmp/x"}, true},
		{[]string{"--socket-path=/tmp/x"}, tmux.Target{SocketPath: "/tmp/x"}, true},
		{[]string{"--config", "/c.toml", "--capture-all"}, tmux.Target{}, true},
		{[]string{"-L"}, tmux.Target{}, false},
		{[]string{"--follow"}, tmux.Target{}, false},
		{[]string{"-L", "x", "--help"}, tmux.Target{}, false},
		{[]string{"--version"}, tmux.Target{}, false},
		{[]string{"-h"}, tmux.Target{}, false},
		{[]string{"stray"}, tmux.Target{}, false},
		{[]string{"--", "-L", "x"}, tmux.Target{}, false},
	} {
		got, _, ok := earlyTarget(c.args, getenv, false)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%q: %+v %v, want %+v %v", c.args, got, ok, c.want, c.ok)
		}
	}
	// With no flag, the environment decides, as it does for Globals.Tmux.
	env["TMUX"] = "/tmp/tmux-1/inside,123,0"
	if got, _, _ := earlyTarget(nil, getenv, false); got != (tmux.Target{SocketPath: "/tmp/tmux-1/inside"}) {
		t.Errorf("inside tmux: %+v", got)
	}
	env["TMA_SOCKET_PATH"] = "/tmp/chosen"
	if got, _, _ := earlyTarget([]string{"--no-capture"}, getenv, false); got != (tmux.Target{SocketPath: "/tmp/chosen"}) {
		t.Errorf("TMA_SOCKET_PATH: %+v", got)
	}
}

// A hook's words: the agent, the event and a payload are positionals.
func TestEarlyTargetPositionals(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"TMUX": "/tmp/tmux-1/s,1,0"}[k] }
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"claude", "Stop"}, true},
		{[]string{"--pane", "%3", "codex", "notify", `{"type":"x"}`}, true},
		{[]string{"--clear-attention", "%3"}, false},
		{[]string{"claude", "Stop", "-x"}, false},
		{[]string{"--help"}, false},
	} {
		got, _, ok := earlyTarget(c.args, getenv, true)
		if ok != c.ok || (ok && got != (tmux.Target{SocketPath: "/tmp/tmux-1/s"})) {
			t.Errorf("%q: %+v %v, want ok=%v", c.args, got, ok, c.ok)
		}
	}
	if _, _, ok := earlyTarget([]string{"claude", "Stop"}, getenv, false); ok {
		t.Errorf("a scan's words took positionals")
	}
}

// The --config word is the file the early client reads.
func TestEarlyTargetConfigWord(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, args := range [][]string{{"--config", "/x.toml"}, {"--config=/x.toml", "-L", "s"}} {
		if _, p, ok := earlyTarget(args, getenv, false); !ok || p != "/x.toml" {
			t.Errorf("%q: config %q ok %v", args, p, ok)
		}
	}
}
