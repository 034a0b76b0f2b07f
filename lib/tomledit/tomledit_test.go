package tomledit

import (
	"strings"
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

// TestCRLF: a CRLF document gets CRLF lines (issue 27 item 17), a
// replaced statement keeps its CRLF, and every edit undoes byte for byte.
func TestCRLF(t *testing.T) {
	for _, d := range []string{
		"model = \"o3\"\r\n",
		"a = 1\r\nmodel = \"o3\"",
		"# c\r\n[p]\r\nx = 1\r\n",
		"model = \"o3\"\r\n[p]\r\nx = 1\r\n",
	} {
		out := Insert([]byte(d), line)
		if n := strings.Count(string(out), "\n") - strings.Count(string(out), "\r\n"); n > 0 {
			t.Errorf("%q: insert gave %q", d, out)
		}
		s, ok := Find(out, "notify")
		if !ok {
			t.Fatalf("%q: not found in %q", d, out)
		}
		if back := Delete(out, s); string(back) != d {
			t.Errorf("round trip %q -> %q -> %q", d, out, back)
		}
	}
	src := []byte("notify = [\"x\"]\r\nmodel = 1\r\n")
	s, _ := Find(src, "notify")
	if got := string(Replace(src, s, line)); got != line+"\r\nmodel = 1\r\n" {
		t.Errorf("replace: %q", got)
	}
}
