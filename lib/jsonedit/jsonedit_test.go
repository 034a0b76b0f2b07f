package jsonedit

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src []byte) *Node {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return n
}

func TestInsertDeleteRoundTrip(t *testing.T) {
	docs := []string{
		"{}",
		"{}\n",
		"{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n",
		"{\n    \"z\": [1, 2],\n    \"a\": true\n}",
		"{\"a\":1,\"b\":[]}",
		"{ \"a\": 1 }",
		"{\n\t\"a\": {\n\t\t\"b\": null\n\t}\n}\n",
		"// comment\n{\n  \"a\": 1 // trailing\n}\n",
	}
	raw := []byte(`{"Stop":[{"hooks":[{"type":"command","command":"tma-hook claude Stop"}]}]}`)
	for _, d := range docs {
		src := []byte(d)
		root := mustParse(t, src)
		out := InsertMember(src, root, "hooks", raw)
		r2 := mustParse(t, out)
		var got any
		if err := json.Unmarshal(out, &got); err != nil && !strings.Contains(d, "//") {
			t.Fatalf("%q -> invalid JSON %q: %v", d, out, err)
		}
		if r2.Get("hooks") == nil {
			t.Fatalf("%q: hooks not inserted: %s", d, out)
		}
		back := DeleteMember(out, r2, r2.Index("hooks"))
		if string(back) != d && !(d == "{}\n" && string(back) == "{}\n") {
			t.Errorf("round trip of %q:\ninserted %q\ngot back %q", d, out, back)
		}
	}
}

func TestAppendDeleteElem(t *testing.T) {
	for _, d := range []string{"{\"a\": []}", "{\n  \"a\": [\n    1\n  ]\n}", "{\"a\":[1,2]}"} {
		src := []byte(d)
		a := mustParse(t, src).Get("a")
		out := AppendElem(src, a, []byte(`{"x":[1,2]}`))
		a2 := mustParse(t, out).Get("a")
		if len(a2.Elems) != len(a.Elems)+1 {
			t.Fatalf("append: %s", out)
		}
		back := DeleteElem(out, a2, len(a2.Elems)-1)
		if string(back) != d {
			t.Errorf("round trip of %q: %q -> %q", d, out, back)
		}
	}
}

func TestPrettyLayout(t *testing.T) {
	src := []byte("{\n  \"model\": \"opus\"\n}\n")
	out := InsertMember(src, mustParse(t, src), "hooks", []byte(`{"Stop":[1]}`))
	want := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      1\n    ]\n  }\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	empty := []byte("{}\n")
	out = InsertMember(empty, mustParse(t, empty), "a", []byte(`[1]`))
	if string(out) != "{\n  \"a\": [\n    1\n  ]\n}\n" {
		t.Errorf("empty: %q", out)
	}
}

func TestDeleteFirstMember(t *testing.T) {
	src := []byte("{\n  \"a\": 1,\n  \"b\": 2\n}")
	out := DeleteMember(src, mustParse(t, src), 0)
	if string(out) != "{\n  \"b\": 2\n}" {
		t.Errorf("%q", out)
	}
}

func TestParseErrors(t *testing.T) {
	for _, d := range []string{"", "{", "{\"a\" 1}", "[1,]", "{} x", "{\"a\":\"b\n\"}"} {
		if _, err := Parse([]byte(d)); err == nil {
			t.Errorf("%q parsed", d)
		}
	}
}

func TestReplaceValue(t *testing.T) {
	src := []byte("{\n  \"hooks\": {\n    \"Stop\": \"x\"\n  }\n}")
	n := mustParse(t, src).Lookup("hooks", "Stop")
	out := ReplaceValue(src, n, []byte(`"y"`))
	if string(out) != "{\n  \"hooks\": {\n    \"Stop\": \"y\"\n  }\n}" {
		t.Errorf("%q", out)
	}
}

// TestCRLFStaysCRLF: every line an edit adds to a CRLF document ends in
// CRLF (issue 27 item 17), and the delete that undoes it gives the bytes
// back.
func TestCRLFStaysCRLF(t *testing.T) {
	raw := []byte(`{"Stop":[{"hooks":[{"type":"command","command":"tma-hook claude Stop"}]}]}`)
	bare := func(s []byte) int { return strings.Count(string(s), "\n") - strings.Count(string(s), "\r\n") }
	for _, d := range []string{
		"{\r\n\t\"model\": \"sonnet\"\r\n}\r\n",
		"{\r\n  \"a\": {},\r\n  \"b\": []\r\n}\r\n",
		"{}\r\n",
	} {
		src := []byte(d)
		if Eol(src) != "\r\n" && d != "{}\r\n" {
			t.Fatalf("%q: Eol %q", d, Eol(src))
		}
		out := InsertMember(src, mustParse(t, src), "hooks", raw)
		if n := bare(out); n > 0 {
			t.Errorf("%q: insert added %d LF-only lines: %q", d, n, out)
		}
		r := mustParse(t, out)
		if back := DeleteMember(out, r, r.Index("hooks")); string(back) != d {
			t.Errorf("%q: round trip gave %q", d, back)
		}
	}
	src := []byte("{\r\n  \"a\": {},\r\n  \"b\": []\r\n}\r\n")
	root := mustParse(t, src)
	out := InsertMember(src, root.Get("a"), "k", []byte(`[1]`))
	if n := bare(out); n > 0 {
		t.Errorf("fill an empty object: %q", out)
	}
	out = AppendElem(out, mustParse(t, out).Get("b"), []byte(`{"x":1}`))
	if n := bare(out); n > 0 {
		t.Errorf("fill an empty array: %q", out)
	}
	if Eol([]byte("{\n}\r\n")) != "\n" || Eol([]byte("{}")) != "\n" {
		t.Error("Eol reads past the first line")
	}
}
