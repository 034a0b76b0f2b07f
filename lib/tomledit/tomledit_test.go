package tomledit

import (
	"testing"

	"github.com/BurntSushi/toml"
)

const line = `notify = ["tma-hook", "codex", "notify"]`

func TestInsertDeleteRoundTrip(t *testing.T) {
	docs := []string{
		"",
		"model = \"o3\"\n",
		"model = \"o3\"",
		"# my codex config\nmodel = \"o3\" # inline\n\n[model_providers.mock]\nname = \"x\" # keep\n",
		"# only comments\n\n[profiles.a]\nmodel = \"b\"\n",
		"arr = [\n  \"a\", # c\n  \"]\",\n]\ns = \"\"\"\n[not a header]\n\"\"\"\n[t]\nk = 1\n",
	}
	for _, d := range docs {
		out := Insert([]byte(d), line)
		var m map[string]any
		if _, err := toml.Decode(string(out), &m); err != nil {
			t.Fatalf("%q -> %q: %v", d, out, err)
		}
		if _, ok := m["notify"].([]any); !ok {
			t.Fatalf("%q: notify not top-level in %q: %#v", d, out, m)
		}
		s, ok := Find(out, "notify")
		if !ok {
			t.Fatalf("not found in %q", out)
		}
		if back := Delete(out, s); string(back) != d {
			t.Errorf("round trip %q -> %q -> %q", d, out, back)
		}
	}
}

func TestFindMultiline(t *testing.T) {
	src := "model = 1\nnotify = [\n  \"a\",\n  \"b\", # x\n]\nafter = 2\n[t]\nnotify = 3\n"
	s, ok := Find([]byte(src), "notify")
	if !ok || src[s.Start:s.End] != "notify = [\n  \"a\",\n  \"b\", # x\n]\n" {
		t.Fatalf("%v %q", ok, src[s.Start:s.End])
	}
	out := Replace([]byte(src), s, line)
	if string(out) != "model = 1\n"+line+"\nafter = 2\n[t]\nnotify = 3\n" {
		t.Errorf("%q", out)
	}
	if _, ok := Find([]byte("[t]\nnotify = 1\n"), "notify"); ok {
		t.Error("found a table key as top-level")
	}
	if s, ok := Find([]byte(`"notify" = []`+"\n"), "notify"); !ok || s.Key != "notify" {
		t.Error("quoted key")
	}
}
