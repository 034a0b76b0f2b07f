package card

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/screen"
)

func agents(t *testing.T) map[string]*manifest.Agent {
	t.Helper()
	all, err := manifest.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*manifest.Agent{}
	for _, a := range all {
		by[a.Name] = a
	}
	return by
}

// load reads a captured screen and builds its card from the screen alone,
// the pane's state and detail taken from the fixture's header.
func load(t *testing.T, name string) (*fixture.Fixture, *Capture) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := fixture.Parse(name, b)
	if err != nil {
		t.Fatal(err)
	}
	return f, &Capture{Screen: screen.Screen{Raw: f.Screen, Height: f.Height}, Agent: agents(t)[f.Agent]}
}

func labels(c Card) []string {
	var out []string
	for _, o := range c.Options {
		out = append(out, o.Label)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// The permission and question dialogs of every agent, at both widths: the
// question and the choices as the agent drew them.
func TestScreenDialogs(t *testing.T) {
	colours := []string{"Red", "Green", "Blue"}
	cases := []struct {
		file     string
		kind     string
		question string
		options  []string // a prefix of the choices
	}{
		{"claude/2.1.197/blocked-bash", KindPermission, "Do you want to proceed?", []string{"Yes", "Yes, and always allow access to project/ from this project", "No"}},
		{"claude/2.1.197/blocked-write", KindPermission, "Do you want to create notes.txt?", []string{"Yes", "Yes, allow all edits during this session (shift+tab)", "No"}},
		{"claude/2.1.197/blocked-question", KindQuestion, "Which colour should the mock paint the probe?", colours},
		{"claude/2.1.197/blocked-plan", KindInformational, "Claude has written up a plan and is ready to execute. Would you like to proceed?", []string{"Yes, and use auto mode"}},
		{"claude/2.1.197/blocked-trust", KindInformational, "Accessing workspace:", []string{"Yes, I trust this folder", "No, exit"}},
		// Claude Code 2.1.332 (issue 30): a third option, the trust gate's order turned.
		{"claude/blocked-bash", KindPermission, "Do you want to proceed?", []string{"Yes", "Yes, and always allow access to /tmp/lab/project from this project", "Yes, and switch to auto mode · auto mode handles these prompts for you", "No"}},
		// At 80 columns option 2 wraps onto a second line: one label still.
		{"claude/blocked-write", KindPermission, "Do you want to create notes.txt?", []string{"Yes", "Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)", "No"}},
		{"claude/blocked-question", KindQuestion, "Which colour should the mock paint the probe?", colours},
		{"claude/blocked-plan", KindInformational, "Claude has written up a plan and is ready to execute. Would you like to proceed?", []string{"Yes, and use auto mode"}},
		{"claude/blocked-trust", KindInformational, "Accessing workspace:", []string{"No, exit", "Yes, I trust this folder"}},
		// Copilot wraps option 2 under its number at 80 columns.
		{"copilot/blocked-write", KindPermission, "Do you want to create /tmp/lab/project/notes.txt?", []string{"Yes", "Yes, and don't ask again for file operations when in this repo (/tmp/lab/project)", "No, and tell Copilot what to do differently (Esc to stop)"}},
		{"codex/blocked-bash", KindPermission, "Would you like to run the following command?", []string{"Yes, proceed (y)"}},
		{"codex/blocked-question", KindQuestion, "Which colour should the mock paint the probe?", append(slices.Clone(colours), "None of the above")},
		{"gemini/blocked-bash", KindPermission, "Allow execution of [Shell]?", []string{"Allow once", "Allow for this session", "No, suggest changes (esc)"}},
		{"gemini/blocked-write", KindPermission, "Apply this change?", []string{"Allow once", "Allow for this session", "Modify with external editor"}},
		{"gemini/blocked-question", KindQuestion, "Which colour should the mock paint the probe?", colours},
		{"opencode/blocked-bash", KindPermission, "<nil>", []string{"Allow once", "Allow always", "Reject"}},
		{"opencode/blocked-write", KindPermission, "<nil>", []string{"Allow once", "Allow always", "Reject"}},
		{"opencode/blocked-question", KindQuestion, "Which colour should the mock paint the probe?", append(slices.Clone(colours), "Type your own answer")},
		{"pi/blocked-permission-gate", KindPermission, "Allow?", []string{"Yes", "No"}},
		{"pi/blocked-confirm", KindPermission, "Clear session?", []string{"Yes", "No"}},
		{"pi/blocked-question", KindQuestion, "Which colour should the mock paint the probe?", colours},
		{"pi/blocked-select", KindQuestion, "", []string{"Yes, create fork", "No, stay in current session"}},
	}
	for _, tc := range cases {
		for _, w := range []string{"80", "120"} {
			name := tc.file + "-w" + w + ".txt"
			t.Run(name, func(t *testing.T) {
				f, c := load(t, name)
				got := Build(Pane{Agent: f.Agent, State: f.State, Detail: f.Detail}, c)
				if got.Kind != tc.kind || deref(got.Lane) != LaneScreen || deref(got.Confidence) != Wrapped {
					t.Fatalf("kind/lane/confidence = %s/%s/%s, want %s/screen/wrapped", got.Kind, deref(got.Lane), deref(got.Confidence), tc.kind)
				}
				if q := deref(got.Question); tc.question != "" && q != tc.question {
					t.Errorf("question = %q, want %q", q, tc.question)
				}
				if ls := labels(got); len(ls) < len(tc.options) || !slices.Equal(ls[:len(tc.options)], tc.options) {
					t.Errorf("options = %q, want them to start %q", ls, tc.options)
				}
				if got.Tool != nil || got.Request != nil {
					t.Errorf("a screen card with tool %v request %v", got.Tool, got.Request)
				}
			})
		}
	}
}

// What a choice says under or beside its label is its description, not a
// choice of its own; the key hints are neither.
func TestDescriptionsAndHints(t *testing.T) {
	for _, name := range []string{"claude/blocked-question-w80.txt", "claude/2.1.197/blocked-question-w80.txt", "codex/blocked-question-w120.txt", "gemini/blocked-question-w80.txt", "pi/blocked-question-w120.txt"} {
		f, c := load(t, name)
		got := Build(Pane{Agent: f.Agent, State: f.State, Detail: f.Detail}, c)
		if len(got.Options) < 3 || deref(got.Options[0].Description) != "Paint it red." || deref(got.Options[2].Description) != "Paint it blue." {
			t.Errorf("%s: options %+v", name, got.Options)
		}
		for _, o := range got.Options {
			if hintRE.MatchString(o.Label) {
				t.Errorf("%s: a key hint as a choice: %q", name, o.Label)
			}
		}
		if got.Text == nil || hintRE.MatchString(*got.Text) {
			t.Errorf("%s: text %q", name, deref(got.Text))
		}
	}
}

// Text is the dialog's lines, one paragraph a line: a line Claude wrapped at
// the pane's width is joined back, a short one is not.
func TestReflow(t *testing.T) {
	f, c := load(t, "claude/2.1.197/blocked-plan-w80.txt")
	got := Build(Pane{Agent: f.Agent, State: f.State, Detail: f.Detail}, c)
	if deref(got.Text) != "Claude has written up a plan and is ready to execute. Would you like to proceed?" {
		t.Errorf("plan text %q", deref(got.Text))
	}
	f, c = load(t, "claude/2.1.197/blocked-bash-w120.txt")
	got = Build(Pane{Agent: f.Agent, State: f.State, Detail: f.Detail}, c)
	if deref(got.Text) != "Bash command\ntouch probe.txt\nRun the probe command from the mock\nDo you want to proceed?" {
		t.Errorf("bash text %q", deref(got.Text))
	}
}

// A stamped tool is the card, exact: the hook lane for claude's reply-lane
// id (or none), the api lane for OpenCode's server-side request id. No
// capture is needed or read.
func TestStamps(t *testing.T) {
	p := Pane{Agent: "claude", State: "blocked", Detail: "permission", PermissionRequest: "0123456789abcdef",
		PendingTool: "Bash", PendingSummary: "touch probe.txt"}
	got := Build(p, nil)
	if got.Kind != KindPermission || deref(got.Lane) != LaneHook || deref(got.Confidence) != Exact ||
		deref(got.Tool) != "Bash" || deref(got.Summary) != "touch probe.txt" || deref(got.Request) != "0123456789abcdef" {
		t.Errorf("hook card %+v", got)
	}
	p = Pane{Agent: "opencode", State: "blocked", Detail: "permission", PermissionRequest: "per_abc", PendingTool: "bash", PendingSummary: "touch probe.txt"}
	if got := Build(p, nil); deref(got.Lane) != LaneAPI || deref(got.Confidence) != Exact || deref(got.Request) != "per_abc" {
		t.Errorf("api card %+v", got)
	}
	// A summary's control bytes do not travel, and its length is bounded.
	p.PendingSummary = "rm\x1b[31m -rf " + string(make([]byte, 500))
	if got := Build(p, nil); len(deref(got.Summary)) > maxLabel || deref(got.Summary) != "rm [31m -rf" {
		t.Errorf("summary %q", deref(got.Summary))
	}
}

// A question's stamp is its id only: the words come off the screen, and the
// card keeps the id.
func TestQuestionIDAndScreen(t *testing.T) {
	f, c := load(t, "opencode/blocked-question-w120.txt")
	got := Build(Pane{Agent: f.Agent, State: "blocked", Detail: "question", QuestionRequest: "que_1"}, c)
	if deref(got.Request) != "que_1" || deref(got.Lane) != LaneScreen || deref(got.Question) != "Which colour should the mock paint the probe?" {
		t.Errorf("card %+v", got)
	}
}

// Not blocked is none, with nothing else; blocked with a screen that shows
// no dialog (a hook's claim the screen has not caught up with, a quoted
// dialog in the conversation) is failed; no capture is failed too.
func TestNoneAndFailed(t *testing.T) {
	if got := Build(Pane{Agent: "claude", State: "idle"}, nil); got.Kind != KindNone || got.Lane != nil || got.Confidence != nil || len(got.Options) != 0 {
		t.Errorf("idle card %+v", got)
	}
	for _, name := range []string{"claude/idle-quote-w80.txt", "claude/idle-quote-question-w120.txt", "codex/idle-fresh-w80.txt"} {
		f, c := load(t, name)
		got := Build(Pane{Agent: f.Agent, State: "blocked", Detail: "permission"}, c)
		if got.Kind != KindPermission || deref(got.Confidence) != Failed || got.Question != nil || len(got.Options) != 0 || got.Text != nil {
			t.Errorf("%s: card %+v", name, got)
		}
	}
	if got := Build(Pane{Agent: "pi", State: "blocked", Detail: "question"}, nil); deref(got.Confidence) != Failed {
		t.Errorf("no capture: %+v", got)
	}
}

func TestKindOf(t *testing.T) {
	for _, tc := range [][3]string{{"blocked", "permission", KindPermission}, {"blocked", "question", KindQuestion},
		{"blocked", "setup", KindInformational}, {"blocked", "", KindInformational}, {"working", "permission", KindNone}, {"idle", "", KindNone}} {
		if got := KindOf(tc[0], tc[1]); got != tc[2] {
			t.Errorf("KindOf(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}

// The choice that opens an agent's own text field is marked, and only it:
// picking it answers nothing until words are typed there, so a surface
// that cannot type (the web page) must not offer it as a button.
func TestFreeTextChoice(t *testing.T) {
	for _, tc := range []struct {
		file string
		free string // the marked label, "" for none
	}{
		{"claude/blocked-question", "Type something."},
		{"claude/2.1.197/blocked-question", "Type something."},
		{"opencode/blocked-question", "Type your own answer"},
		{"pi/blocked-questionnaire", "Type something."},
		{"qwen/blocked-question", "Type something..."},
		{"copilot/blocked-question", "Other (type your answer)"},
		{"codex/blocked-question", ""}, // "None of the above" is an answer; its notes are optional
		{"gemini/blocked-question", ""},
		{"claude/blocked-bash", ""},
	} {
		for _, w := range []string{"80", "120"} {
			name := tc.file + "-w" + w + ".txt"
			t.Run(name, func(t *testing.T) {
				f, c := load(t, name)
				got := Build(Pane{Agent: f.Agent, State: f.State, Detail: f.Detail}, c)
				var free []string
				for _, o := range got.Options {
					if o.FreeText {
						free = append(free, o.Label)
					}
				}
				want := []string{}
				if tc.free != "" {
					want = []string{tc.free}
				}
				if len(free) != len(want) || (len(want) == 1 && free[0] != want[0]) {
					t.Errorf("free-text choices %q, want %q (options %q)", free, want, labels(got))
				}
			})
		}
	}
}
