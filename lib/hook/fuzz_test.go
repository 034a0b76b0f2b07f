package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/testkit"
	"github.com/tmaproject/tma/lib/tmux"
)

// FuzzBuild maps arbitrary payloads and event names, for every bundled
// agent, blind and against a pane list. The payload's fields come out
// cleaned (no control byte, valid UTF-8, bounded; a session id only from a
// format-safe alphabet), Build never fails on them, and every line it plans
// is one tmux command line that parses (if-shell bodies too) with no #(…)
// anywhere, the pending tool landing as one literal word.
func FuzzBuild(f *testing.F) {
	agents, err := manifest.Bundled()
	if err != nil {
		f.Fatal(err)
	}
	index := map[string]uint8{}
	for i, a := range agents {
		index[a.Name] = uint8(i)
	}
	files, _ := filepath.Glob("../../fixtures/*/hooks/*")
	if len(files) == 0 {
		f.Fatal("no captured hook payloads under fixtures/*/hooks")
	}
	for _, name := range files {
		ai, ok := index[filepath.Base(filepath.Dir(filepath.Dir(name)))]
		if !ok {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for n := 0; sc.Scan(); n++ {
			var ev struct {
				Event   string          `json:"event"`
				Payload json.RawMessage `json:"payload"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Event == "" {
				continue
			}
			f.Add(ai, ev.Event, string(ev.Payload), n%3 == 0, "sub-1 sub-2")
		}
	}
	f.Add(index["claude"], "PreToolUse", `{"session_id":"a#{pane_id}","tool_name":"Bash\n#(id)","tool_input":{"command":"rm -rf '$HOME' ; kill-server"}}`, true, "")
	f.Add(index["claude"], "PermissionRequest", `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"\u0000\u001b[31m\xff"}}`, false, "")
	f.Add(index["claude"], "SubagentStart", `{"agent_id":"'; kill-server; '","session_id":"s1"}`, true, "x")
	f.Add(index["codex"], "Stop", `not json at all`, false, "")

	f.Fuzz(func(t *testing.T, ai uint8, event, payload string, registered bool, subagents string) {
		a := agents[int(ai)%len(agents)]
		p := ParsePayload(payload)
		checkPayload(t, p)
		panes := []Pane{{ID: "%1", Subagents: subagents}, {ID: "%2", Session: "s1", Name: a.Name}}
		if registered {
			panes[0].Session, panes[0].Name = p.Session, a.Name
		}
		for _, ps := range [][]Pane{nil, panes} {
			pl, err := Build(Event{Agent: a, Name: event, Payload: p, Pane: "%1", AgentPID: 42, NowMS: 1_800_000_000_000, Request: "r-1"}, ps)
			if err != nil {
				t.Fatalf("%s %s: %v", a.Name, event, err)
			}
			for _, l := range pl.Lines {
				if tmux.CheckValue(l) != nil {
					t.Fatalf("a planned line would break the batch: %q", l)
				}
				checkLine(t, p, l, 0)
			}
		}
	})
}

func checkPayload(t *testing.T, p Payload) {
	t.Helper()
	for _, f := range []struct {
		name, v string
		max     int
	}{{"transcript", p.Transcript, 1024}, {"subagent", p.SubagentID, 200}, {"tool", p.Tool, 120}, {"call", p.Call, 120}, {"summary", p.Summary, 120}, {"session", p.Session, 200}} {
		if len(f.v) > f.max || !utf8.ValidString(f.v) || strings.IndexFunc(f.v, record.IsControl) >= 0 || f.v != strings.TrimSpace(f.v) {
			t.Fatalf("%s %q is not clean text of at most %d bytes", f.name, f.v, f.max)
		}
	}
	if strings.Trim(p.Session, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") != "" {
		t.Fatalf("session id %q would reach a format guard", p.Session)
	}
}

// checkLine parses l as tmux would and looks inside every if-shell.
func checkLine(t *testing.T, p Payload, l string, depth int) {
	t.Helper()
	if depth > 3 {
		t.Fatalf("if-shell nested deeper than tma writes: %s", l)
	}
	cmds, err := testkit.TmuxCommands(l)
	if err != nil {
		t.Fatalf("line does not parse: %v\n%s", err, l)
	}
	for _, c := range cmds {
		for _, w := range c {
			if strings.Contains(w, "#(") {
				t.Fatalf("a #( in %q\nline: %s", w, l)
			}
		}
		switch c[0] {
		case "if-shell":
			if len(c) < 6 || len(c) > 7 || !slices.Equal(c[1:3], []string{"-F", "-t"}) || !tmux.ValidPaneID(c[3]) {
				t.Fatalf("if-shell reads as %q", c)
			}
			for _, body := range c[5:] {
				checkLine(t, p, body, depth+1)
			}
		case "set":
			if len(c) >= 6 && c[1] == "-p" && c[4] == "@agent_pending_tool" && c[5] != p.Tool {
				t.Fatalf("pending tool %q written as %q", p.Tool, c[5])
			}
		case "display":
		default:
			t.Fatalf("unexpected command %q in %s", c, l)
		}
	}
}
