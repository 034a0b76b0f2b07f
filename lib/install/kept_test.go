package install

import (
	"testing"
)

// TestKeptContainersSurviveUninstall: the user's empty containers an
// install fills are noted (empties, docKept), and an uninstall told of
// them leaves each with its bytes (issue 27 item 16); one it was not told
// of goes, as a container tma created does.
func TestKeptContainersSurviveUninstall(t *testing.T) {
	e := Env{Getenv: func(string) string { return "" }}
	w := &Wrapper{File: "", Ref: "tma-hook", Mode: RefBare}
	for _, c := range []struct{ name, src, told string }{
		{"empty hooks", "{\n  \"model\": \"sonnet\",\n  \"hooks\": {}\n}\n", ""},
		{"empty event array", `{"hooks":{"Stop":[]}}`, ""},
		{"spaced", "{\n  \"hooks\": { \"Stop\": [ ], \"x\": [1] }\n}\n", ""},
		{"commented", "{\n  \"hooks\": { /* none */ }\n}\n", ""},
		{"not told", "{\n  \"hooks\": {}\n}\n", "{}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := hookSpec{shape: groupShape, agent: "claude", events: []string{"Stop", "SessionEnd"}, path: "f", refs: e.Refs(w)}
			kept := spec.empties([]byte(c.src))
			if len(kept) == 0 {
				t.Fatal("no empty container noted")
			}
			out, err := spec.install(e, []byte(c.src), w, false)
			if err != nil {
				t.Fatal(err)
			}
			if c.told == "" {
				spec.kept = kept
			}
			back, err := spec.uninstall(out)
			if err != nil {
				t.Fatal(err)
			}
			back = restoreKept(back, "f", spec.kept, isEmptyObject)
			want := c.src
			if c.told != "" {
				want = c.told
			}
			if string(back) != want {
				t.Errorf("uninstall gave\n%q\nwant\n%q", back, want)
			}
		})
	}
}

func TestDocKeptAndRestoreTrust(t *testing.T) {
	for src, want := range map[string]bool{"": true, "\n": true, "{ }": true, "{\n}\n": true, "{}": false, "{}\n": false, `{"a":1}`: false} {
		if got := len(docKept("f", []byte(src), true)) == 1; got != want {
			t.Errorf("docKept(%q) = %v, want %v", src, got, want)
		}
	}
	if docKept("f", nil, false) != nil {
		t.Error("a file install creates is noted")
	}
	// A record whose text is not an empty container of the same kind, or
	// the same string, changes nothing.
	src := []byte(`{"hooks":{},"statusLine":{"command":"a && b"}}`)
	for _, k := range []Kept{
		{File: "f", Keys: []string{"hooks"}, Text: `{"x":1}`},
		{File: "f", Keys: []string{"hooks"}, Text: `[]`},
		{File: "f", Keys: []string{"statusLine", "command"}, Text: `"other"`},
		{File: "g", Keys: []string{"hooks"}, Text: `{ }`},
		{File: "f", Text: `{"a":1}`},
	} {
		if got := restoreKept(src, "f", []Kept{k}, func([]byte) bool { return true }); string(got) != string(src) {
			t.Errorf("%+v restored to %s", k, got)
		}
	}
	got := restoreKept(src, "f", []Kept{{File: "f", Keys: shimKeys, Text: `"a \u0026\u0026 b"`}, {File: "f", Keys: []string{"hooks"}, Text: "{ }"}}, isEmptyObject)
	if string(got) != `{"hooks":{ },"statusLine":{"command":"a \u0026\u0026 b"}}` {
		t.Errorf("restore: %s", got)
	}
	a := &AgentRecord{}
	a.Keep([]Kept{{File: "f", Keys: shimKeys, Text: `"a"`}, {File: "f", Keys: []string{"hooks"}, Text: "{}"}})
	a.Keep([]Kept{{File: "f", Keys: shimKeys, Text: `"b"`}})
	if len(a.Kept) != 2 || a.Kept[0].Text != `"b"` {
		t.Errorf("Keep: %+v", a.Kept)
	}
}
