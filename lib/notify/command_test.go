package notify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

func TestRunOutcomes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	r := Run(`cat >"$OUT"; printf '%s' "$TMA_STATE" >>"$OUT"; echo oops >&2`, []byte(`{"x":1}`),
		[]string{"OUT=" + out, "TMA_STATE=blocked"}, 5*time.Second)
	if r.Exit != 0 || r.Reason != "" || r.Stderr != "oops\n" {
		t.Errorf("clean run: %+v", r)
	}
	if b, _ := os.ReadFile(out); string(b) != `{"x":1}blocked` {
		t.Errorf("the command saw %q", b)
	}
	if r := Run("exit 3", nil, nil, 5*time.Second); r.Exit != 3 || r.Reason != "exit 3" {
		t.Errorf("exit 3: %+v", r)
	}
	// A hanging command (and its children) is killed at its bound.
	start := time.Now()
	r = Run("sleep 30 & sleep 30", nil, nil, 300*time.Millisecond)
	if r.Reason != "killed after 300ms" || time.Since(start) > 5*time.Second {
		t.Errorf("hang: %+v after %v", r, time.Since(start))
	}
	// An inherited payload variable never leaks into a fire.
	t.Setenv("TMA_TITLE", "leak")
	r = Run(`test -z "${TMA_TITLE+x}"`, nil, nil, 5*time.Second)
	if r.Exit != 0 {
		t.Errorf("TMA_TITLE inherited: %+v", r)
	}
}

func TestFailureRecord(t *testing.T) {
	run := t.TempDir()
	env := func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return run
		}
		return ""
	}
	if f, err := LastFailure(env); f != nil || err != nil {
		t.Fatalf("fresh: %v %v", f, err)
	}
	if err := Record(env, Blocked, "notify-me", Result{Exit: 3, Reason: "exit 3"}, 99); err != nil {
		t.Fatal(err)
	}
	f, err := LastFailure(env)
	if err != nil || f == nil || f.Reason != "exit 3" || f.Command != "notify-me" || f.Trigger != Blocked || f.AtMS != 99 {
		t.Fatalf("recorded %+v %v", f, err)
	}
	if st, _ := os.Stat(FailureFile(env)); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	// The next clean fire clears it.
	if err := Record(env, Blocked, "notify-me", Result{}, 100); err != nil {
		t.Fatal(err)
	}
	if f, _ := LastFailure(env); f != nil {
		t.Errorf("not cleared: %+v", f)
	}
}

func TestAppendLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "b", "n.jsonl")
	for _, l := range []string{"one\n", "two\n"} {
		if err := AppendLog(p, []byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "one\ntwo\n" || st.Mode().Perm() != 0o600 {
		t.Errorf("log %q mode %v", b, st.Mode())
	}
}

// The bell and OSC bytes reach the pane as its own output: tmux sees them
// (pipe-pane records what the pane printed).
func TestWriteTTYReachesThePane(t *testing.T) {
	s := testkit.NewServer(t)
	p := pane(t, s)
	rec := filepath.Join(s.Dir, "out")
	s.MustRun("pipe-pane", "-O", "-t", p, "cat >"+rec)
	tty := strings.TrimSpace(s.MustRun("display", "-p", "-t", p, "#{pane_tty}"))
	want := TTYBytes(true, true, true, "claude", "blocked")
	if err := WriteTTY(tty, want); err != nil {
		t.Fatal(err)
	}
	s.WaitFor(func() bool {
		b, _ := os.ReadFile(rec)
		return strings.Contains(string(b), want)
	}, "the sequences in the pane's output")
	if err := WriteTTY("/etc/passwd", "x"); err == nil {
		t.Errorf("wrote to a non-tty path")
	}
}
