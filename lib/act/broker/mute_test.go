package broker

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

func (r *rig) mute(m Mute) (int, string, string) {
	r.t.Helper()
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	var out, errs bytes.Buffer
	m.Manifests, m.Tmux, m.Host, m.Server = ms, tmux.New(r.s.Bin, tmux.Target{SocketPath: r.s.Socket}), "testhost", r.s.Socket
	m.Now = func() int64 { return time.Now().UnixMilli() }
	m.Stdout, m.Stderr = &out, &errs
	m.Errorf = func(format string, a ...any) { fmt.Fprintf(&errs, "tma: error: "+format+"\n", a...) }
	m.DescribeTmuxError = func(_ *tmux.Client, err error) string { return err.Error() }
	code := m.Run()
	return code, out.String(), errs.String()
}

func compile(t *testing.T, f selector.Flags) *selector.Selector {
	t.Helper()
	s, err := f.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMute: --for writes a deadline that far ahead, no --for the
// until-cleared value, --clear unsets it; a selector mutes every agent pane
// it matches (in pane order), and one that matches nothing is a usage
// error; a pane that is gone exits 3 and names it.
func TestMute(t *testing.T) {
	r := newRig(t)
	a := r.s.StartAgent("claude", claudeIdle)
	b := r.s.StartAgent("claude", claudeBlocked)
	r.settle(a.Pane, "idle")
	r.settle(b.Pane, "blocked")

	before := time.Now().UnixMilli()
	code, out, errs := r.mute(Mute{Pane: a.Pane, ForMS: 60_000})
	if code != act.ExitOK || !strings.HasPrefix(out, "muted "+a.Pane+" ") {
		t.Fatalf("mute --for: exit %d %q %q", code, out, errs)
	}
	until, err := strconv.ParseInt(r.s.Option(a.Pane, act.MuteOption), 10, 64)
	if err != nil || until < before+60_000 || until > time.Now().UnixMilli()+60_000 {
		t.Fatalf("%s = %d (%v), want a minute from now", act.MuteOption, until, err)
	}
	if code, out, _ = r.mute(Mute{Pane: a.Pane, Clear: true}); code != act.ExitOK || out != "unmuted "+a.Pane+"\n" {
		t.Fatalf("--clear: exit %d %q", code, out)
	}
	if v := r.s.Option(a.Pane, act.MuteOption); v != "" {
		t.Fatalf("--clear left %q", v)
	}

	agent := "claude"
	code, out, errs = r.mute(Mute{Selector: compile(t, selector.Flags{Agent: &agent})})
	if code != act.ExitOK || out != fmt.Sprintf("muted %s until cleared\nmuted %s until cleared\n", a.Pane, b.Pane) {
		t.Fatalf("by selector: exit %d %q %q", code, out, errs)
	}
	if r.s.Option(b.Pane, act.MuteOption) != strconv.FormatInt(act.MuteUntil(0, 0), 10) {
		t.Errorf("until cleared: %q", r.s.Option(b.Pane, act.MuteOption))
	}
	none := "codex"
	if code, _, errs = r.mute(Mute{Selector: compile(t, selector.Flags{Agent: &none})}); code != act.ExitUsage || !strings.Contains(errs, "no agent pane matches the selector") {
		t.Errorf("empty match: exit %d %q", code, errs)
	}
	if code, _, errs = r.mute(Mute{Pane: "%999", ForMS: 1000}); code != act.ExitVanish || !strings.Contains(errs, "tma: mute: no pane %999 on ") {
		t.Errorf("gone pane: exit %d %q", code, errs)
	}
}

// TestMuteNoServer: no server is exit 1 with the described error.
func TestMuteNoServer(t *testing.T) {
	r := &rig{t: t, env: map[string]string{}}
	r.s = &testkit.Server{Bin: testkit.TmuxBin(), Socket: t.TempDir() + "/absent"}
	if code, _, errs := r.mute(Mute{Pane: "%1"}); code != act.ExitError || !strings.Contains(errs, "tma: error: ") {
		t.Errorf("exit %d %q", code, errs)
	}
}
