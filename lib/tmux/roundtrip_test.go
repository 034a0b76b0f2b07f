package tmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// The quoting the fuzz targets check in Go, checked against tmux itself:
// every nasty string written through Write.Line (unguarded, and nested
// inside if-shell's guard) reads back byte for byte; written as a format
// through Literal it expands to itself (a "#[" kept escaped), and a #(…) in
// it never runs; a rollup lands on a session whose name has doubled blanks;
// a value tmux's parser would misread (bytes that are not UTF-8) is
// refused before it can cost the batch.
func TestQuotingRoundTripsThroughTmux(t *testing.T) {
	srv := testkit.NewServer(t)
	c := New(srv.Bin, Target{SocketName: srv.Name})
	ctx := context.Background()
	pane := strings.TrimSpace(srv.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	canary := filepath.Join(t.TempDir(), "ran")
	strs := append([]string{"#(touch " + canary + ")", "x #(touch " + canary + ") #{pane_id}", strings.Repeat("'\\#", 200)}, nasty...)

	read := func(target, name string, scope ...string) string {
		t.Helper()
		args := append(append([]string{"show-options"}, scope...), "-qv", "-t", target, name)
		out, _, err := c.Run(ctx, "", args...)
		if err != nil {
			t.Fatalf("show-options %s: %v", name, err)
		}
		return strings.TrimSuffix(out, "\n")
	}
	for _, s := range strs {
		if CheckValue(s) != nil {
			if s != "\xff\xfe" && s != "a\tb" {
				t.Fatalf("%q refused: %v", s, CheckValue(s))
			}
			continue
		}
		for _, guard := range []string{"", "#{==:#{pane_id}," + pane + "}"} {
			l, err := Write{Pane: pane, Guard: guard, Sets: []Set{
				{Name: "@tma_rt", Value: s},
				{Name: "@tma_rt_f", Value: Literal(s), Format: true},
			}}.Line()
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			if stderr, err := c.Exec(ctx, []string{l}); err != nil || stderr != "" {
				t.Fatalf("%q: %v %s\nline: %s", s, err, stderr, l)
			}
			if got := read(pane, "@tma_rt", "-p"); got != s {
				t.Errorf("guard %q: wrote %q, read back %q\nline: %s", guard, s, got, l)
			}
			if got := read(pane, "@tma_rt_f", "-p"); got != Expanded(s) {
				t.Errorf("guard %q: wrote Literal(%q) as a format, it expanded to %q\nline: %s", guard, s, got, l)
			}
		}
	}

	// tmux keeps a session name's blanks (a tab it stores as the text \t).
	for _, name := range []string{"two  blanks", "x'y", " lead"} {
		srv.MustRun("new-session", "-d", "-s", name, "sh")
		for _, v := range []string{"blocked:1 idle:2", "a  b"} {
			l, err := ScopedSet("session", name, "@agent_session_summary", v)
			if err != nil {
				t.Fatal(err)
			}
			if stderr, err := c.Exec(ctx, []string{l}); err != nil || stderr != "" {
				t.Fatalf("%s: %v %s", l, err, stderr)
			}
			if got := read(name, "@agent_session_summary"); got != v {
				t.Errorf("session %q: wrote %q, read back %q (%s)", name, v, got, l)
			}
		}
	}

	// A #(…) job would have been started by the expansions above; give one
	// time to run before saying none did.
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("a #(…) in a written value ran a shell command")
	}
}
