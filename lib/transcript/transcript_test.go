package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the fixtures")

// The real transcripts the lab recorded (fixtures/transcripts/README.md).
var fixtures = map[string]struct{ file, session string }{
	"claude":   {"claude/7e438f55-8363-469e-b23d-3921c641f85b.jsonl", "7e438f55-8363-469e-b23d-3921c641f85b"},
	"codex":    {"codex/rollout-2026-12-01T12-35-18-01a2319a-2fb4-7033-8362-079544de8bf0.jsonl", "01a2319a-2fb4-7033-8362-079544de8bf0"},
	"gemini":   {"gemini/session-2026-12-01T12-36-b67a7a30.jsonl", "b67a7a30-baf1-491f-93c8-afe654178f59"},
	"pi":       {"pi/2026-12-01T11-38-26-178Z_01a23166-2001-7767-923c-d2b1086ce0ec.jsonl", "01a23166-2001-7767-923c-d2b1086ce0ec"},
	"opencode": {"opencode/opencode.db", "ses_dce9ec42bffe5f9VeKTAN7IUpP"},
}

// fixture copies an agent's fixture into a temp dir (a test may change
// it; SQLite keeps its -shm beside the database) and returns its source.
func fixture(t *testing.T, agent string) Source {
	t.Helper()
	if agent == "opencode" && !OpenCodeBuilt {
		t.Skip("built with noopencode: TestOpenCodeBuild checks the refusal")
	}
	f := fixtures[agent]
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "transcripts", f.file))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(f.file))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return Source{Agent: agent, Path: p, Root: dir, Session: f.session}
}

func read(t *testing.T, src Source, req Request) *Page {
	t.Helper()
	p, ref := ReadSource(src, req)
	if ref != nil {
		t.Fatalf("%s %+v: refused %s", src.Agent, req, ref)
	}
	return p
}

// pages walks the whole store back from the end, last events a page.
func pages(t *testing.T, src Source, last int) [][]Event {
	t.Helper()
	var out [][]Event
	req := Request{Last: last, Headers: true}
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("paging does not end")
		}
		p := read(t, src, req)
		out = append(out, p.Events)
		if p.Older == "" {
			return out
		}
		if len(p.Events) > 0 && p.Older != p.Events[len(p.Events)-1].Cursor && !p.BudgetTruncated {
			t.Fatalf("older %s is not the oldest event's cursor %s", p.Older, p.Events[len(p.Events)-1].Cursor)
		}
		req.Before = p.Older
	}
}

func cursors(evs []Event) []string {
	var c []string
	for _, e := range evs {
		c = append(c, e.Cursor)
	}
	return c
}

// TestGolden renders each store's whole transcript, seven events a page,
// against testdata/<agent>.golden, and the first page's JSON document.
func TestGolden(t *testing.T) {
	for agent := range fixtures {
		t.Run(agent, func(t *testing.T) {
			src := fixture(t, agent)
			var b bytes.Buffer
			first := read(t, src, Request{Last: 3})
			doc, err := Document{Pane: "%0", Agent: agent, Page: first}.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			// The path and the file's inode differ per copy; the cursors
			// name the inode, so only their shape is kept.
			doc = bytes.ReplaceAll(doc, []byte(src.Path), []byte("FIXTURE"))
			var pretty bytes.Buffer
			json.Indent(&pretty, doc, "", "  ")
			fmt.Fprintf(&b, "# first page, --last 3 --json\n%s\n", stableCursors(pretty.String()))
			for i, pg := range pages(t, src, 7) {
				fmt.Fprintf(&b, "# page %d\n", i)
				WriteText(&b, &Page{Events: pg})
			}
			golden := filepath.Join("testdata", agent+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs from the rendering; got:\n%s", golden, b.String())
			}
		})
	}
}

// stableCursors replaces the per-copy parts of the cursors (the inode,
// the database identity) with X.
func stableCursors(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, pre := range []string{`"t1.`, `"o1.`} {
			if i := strings.Index(l, pre); i >= 0 {
				j := strings.Index(l[i+4:], ".")
				l = l[:i+4] + "X" + l[i+4+j:]
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// Pages of any size, walked to the head, hold exactly the events of one
// page that holds them all, in order: no overlap and no skip, also where a
// page ends inside a record that yields several events.
func TestPagingNeverOverlapsOrSkips(t *testing.T) {
	for agent := range fixtures {
		t.Run(agent, func(t *testing.T) {
			src := fixture(t, agent)
			all := read(t, src, Request{Last: 1000, Headers: true})
			if all.BudgetTruncated || all.Older != "" {
				t.Fatalf("the whole fixture does not fit one page (truncated %v, older %q)", all.BudgetTruncated, all.Older)
			}
			want := cursors(all.Events)
			inside := false
			for _, e := range all.Events {
				inside = inside || !strings.HasSuffix(e.Cursor, ".0")
			}
			if !inside && agent != "claude" && agent != "codex" { // theirs are one event a record: TestPagingInsideARecord
				t.Fatalf("the %s fixture has no record that yields several events", agent)
			}
			for _, last := range []int{1, 2, 3, 7, 20} {
				var got []string
				for _, pg := range pages(t, src, last) {
					if len(pg) > last {
						t.Fatalf("--last %d served %d", last, len(pg))
					}
					got = append(got, cursors(pg)...)
				}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("--last %d: the pages hold %d events, the whole %d, or in another order", last, len(got), len(want))
				}
			}
		})
	}
}

// --event gives the one event with its whole body; --headers leaves the
// bodies out.
func TestEventAndHeaders(t *testing.T) {
	for agent := range fixtures {
		t.Run(agent, func(t *testing.T) {
			src := fixture(t, agent)
			pg := read(t, src, Request{Last: 50})
			for _, e := range pg.Events {
				one := read(t, src, Request{Event: e.Cursor})
				if len(one.Events) != 1 || one.Events[0].Cursor != e.Cursor || one.Events[0].Body != e.Body || one.Events[0].Kind != e.Kind {
					t.Fatalf("--event %s: got %+v, the page had %+v", e.Cursor, one.Events, e)
				}
			}
			h := read(t, src, Request{Last: 5, Headers: true})
			for _, e := range h.Events {
				b, _ := e.MarshalJSON()
				if !bytes.HasSuffix(b, []byte(`"body":null}`)) {
					t.Errorf("--headers: %s", b)
				}
			}
		})
	}
}

func TestEnvelopeKeys(t *testing.T) {
	src := fixture(t, "claude")
	pg := read(t, src, Request{Last: 1})
	b, _ := Document{Pane: "%3", Agent: "claude", Page: pg}.MarshalJSON()
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v json.RawMessage
		dec.Decode(&v)
	}
	if got := strings.Join(keys, ","); got != "schema,pane,agent,path,session,older,budget_truncated,unknown,events" {
		t.Errorf("envelope keys %s", got)
	}
	if !bytes.Contains(b, []byte(`"session":{"agent":"claude","session_id":"7e438f55-8363-469e-b23d-3921c641f85b","cwd":"/tmp/lab/project","version":"2.1.197","model":`)) {
		t.Errorf("session object: %s", b)
	}
	one := read(t, src, Request{Event: pg.Events[0].Cursor})
	b, _ = Document{Pane: "%3", Agent: "claude", Page: one, Single: true}.MarshalJSON()
	if !bytes.Contains(b, []byte(`"unknown":0,"event":{"cursor":`)) || bytes.Contains(b, []byte(`"events"`)) {
		t.Errorf("--event envelope: %s", b)
	}
	r, _ := RefusalDocument("%3", refuse(CodeStoreIncomplete, "x"))
	if string(r) != `{"schema":1,"pane":"%3","refusal":{"code":"store-incomplete","message":"x"}}` {
		t.Errorf("refusal document %s", r)
	}
}

// writeJSONL writes records, one a line, into a claude store under dir.
func claudeStore(t *testing.T, lines ...string) Source {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Source{Agent: "claude", Path: p, Root: dir, Session: "s"}
}

func userLine(i int, text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "timestamp": fmt.Sprintf("2026-01-01T00:00:%02d.000Z", i%60),
		"sessionId": "s", "message": map[string]any{"role": "user", "content": text}})
	return string(b)
}

// A page boundary inside a record that yields several events (a claude
// assistant message with three blocks).
func TestPagingInsideARecord(t *testing.T) {
	three := `{"type":"assistant","timestamp":"2026-01-01T00:00:05.000Z","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`
	src := claudeStore(t, userLine(1, "first"), three, userLine(9, "last"))
	var got []string
	for _, pg := range pages(t, src, 2) {
		for _, e := range pg {
			got = append(got, e.Kind+":"+e.Preview)
		}
	}
	want := "user_message:last tool_call:Bash {\"command\":\"ls\"} assistant_text:ok thinking:hmm user_message:first"
	if strings.Join(got, " ") != want {
		t.Errorf("paged two at a time:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestReadBudget(t *testing.T) {
	var lines []string
	big := strings.Repeat("x", 100<<10)
	for i := 0; i < 40; i++ {
		lines = append(lines, userLine(i, fmt.Sprintf("record %d %s", i, big)))
	}
	src := claudeStore(t, lines...)
	pg := read(t, src, Request{Last: 20})
	if !pg.BudgetTruncated || len(pg.Events) == 0 || len(pg.Events) >= 20 || pg.Older == "" {
		t.Fatalf("a 4 MB store of 100 KiB records: %d events, truncated %v, older %q", len(pg.Events), pg.BudgetTruncated, pg.Older)
	}
	if pg.ReadBytes > MaxRead {
		t.Errorf("read %d bytes, the budget is %d", pg.ReadBytes, MaxRead)
	}
	if !strings.HasPrefix(pg.Events[0].Preview, "record 39 ") {
		t.Errorf("the newest event is %q", pg.Events[0].Preview)
	}
	next := read(t, src, Request{Last: 20, Before: pg.Older})
	want := fmt.Sprintf("record %d ", 39-len(pg.Events))
	if len(next.Events) == 0 || !strings.HasPrefix(next.Events[0].Preview, want) {
		t.Errorf("the page behind starts at %q, want %q", next.Events[0].Preview, want)
	}
}

func TestRecordTooLarge(t *testing.T) {
	src := claudeStore(t, userLine(1, "small"), userLine(2, strings.Repeat("y", MaxRead+10)))
	_, ref := ReadSource(src, Request{Last: 5})
	if ref == nil || ref.Code != CodeRecordTooLarge {
		t.Fatalf("a record past the read budget: %v", ref)
	}
}

func TestHeaderAndStringBudgets(t *testing.T) {
	var lines []string
	long := strings.Repeat("é", 400) // 800 bytes of two-byte runes
	for i := 0; i < 400; i++ {
		lines = append(lines, userLine(i, long))
	}
	src := claudeStore(t, lines...)
	pg := read(t, src, Request{Last: 1000, Headers: true})
	if !pg.BudgetTruncated || len(pg.Events) >= 400 || pg.Older == "" {
		t.Fatalf("400 events of 256-byte previews: %d served, truncated %v", len(pg.Events), pg.BudgetTruncated)
	}
	total := 0
	for _, e := range pg.Events {
		total += e.headerSize()
		if len(e.Preview) > MaxString || !utf8.ValidString(e.Preview) || len(e.Preview) < MaxString-1 {
			t.Fatalf("a preview of %d bytes (valid UTF-8 %v)", len(e.Preview), utf8.ValidString(e.Preview))
		}
	}
	if total > MaxHeaders {
		t.Errorf("%d bytes of headers, the budget is %d", total, MaxHeaders)
	}
	rest := 0
	for _, p := range pages(t, Source{Agent: src.Agent, Path: src.Path, Root: src.Root}, 1000) {
		rest += len(p)
	}
	if rest != 400 {
		t.Errorf("the truncated pages hold %d events of 400", rest)
	}
}

func TestUnknownAndDrift(t *testing.T) {
	src := claudeStore(t, userLine(1, "hello"), `{"type":"brand-new-record","timestamp":"2026-01-01T00:00:02.000Z"}`, `not json at all`, userLine(3, "bye"))
	pg := read(t, src, Request{Last: 10})
	if pg.Unknown != 2 || len(pg.Events) != 4 {
		t.Fatalf("two drifted records: unknown %d, %d events", pg.Unknown, len(pg.Events))
	}
	if pg.Events[2].Kind != Unknown || pg.Events[2].Preview != "brand-new-record" {
		t.Errorf("the unknown record reads %+v", pg.Events[2])
	}
}

func TestPartialTailIsLeft(t *testing.T) {
	src := claudeStore(t, userLine(1, "done"))
	f, _ := os.OpenFile(src.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"user","message":{"content":"half wri`)
	f.Close()
	pg := read(t, src, Request{Last: 10})
	if len(pg.Events) != 1 || pg.Events[0].Preview != "done" {
		t.Fatalf("a record still being written was served: %+v", pg.Events)
	}
}

// A transcript the agent appends to while it is paged: the cursors of the
// pages already served stay valid and the pages behind them continue
// exactly; a fresh first page has the new events.
func TestAppendWhilePaged(t *testing.T) {
	var lines []string
	for i := 0; i < 10; i++ {
		lines = append(lines, userLine(i, fmt.Sprintf("m%d", i)))
	}
	src := claudeStore(t, lines...)
	p1 := read(t, src, Request{Last: 4})
	f, _ := os.OpenFile(src.Path, os.O_APPEND|os.O_WRONLY, 0)
	for i := 10; i < 13; i++ {
		f.WriteString(userLine(i, fmt.Sprintf("m%d", i)) + "\n")
	}
	f.Close()
	p2 := read(t, src, Request{Last: 4, Before: p1.Older})
	var got []string
	for _, e := range append(p1.Events, p2.Events...) {
		got = append(got, e.Preview)
	}
	if strings.Join(got, " ") != "m9 m8 m7 m6 m5 m4 m3 m2" {
		t.Errorf("paged across an append: %v", got)
	}
	if top := read(t, src, Request{Last: 1}); top.Events[0].Preview != "m12" {
		t.Errorf("the fresh first page starts at %q", top.Events[0].Preview)
	}
}

func TestCursorInvalid(t *testing.T) {
	mk := func() (Source, string) {
		var lines []string
		for i := 0; i < 10; i++ {
			lines = append(lines, userLine(i, fmt.Sprintf("m%d", i)))
		}
		src := claudeStore(t, lines...)
		return src, read(t, src, Request{Last: 3}).Older
	}
	expectInvalid := func(what string, src Source, cursor string) {
		t.Helper()
		for _, req := range []Request{{Last: 3, Before: cursor}, {Event: cursor}} {
			if _, ref := ReadSource(src, req); ref == nil || ref.Code != CodeCursorInvalid {
				t.Errorf("%s: %+v answered %v", what, req, ref)
			}
		}
	}
	src, c := mk()
	b, _ := os.ReadFile(src.Path)
	os.WriteFile(src.Path, b[:len(b)/2], 0o644) // truncated in place
	expectInvalid("truncated", src, c)

	src, c = mk()
	b, _ = os.ReadFile(src.Path)
	tmp := src.Path + ".new"
	os.WriteFile(tmp, b, 0o644)
	os.Rename(tmp, src.Path) // the same bytes, another file
	expectInvalid("replaced", src, c)

	src, c = mk()
	f, _ := os.OpenFile(src.Path, os.O_WRONLY, 0)
	f.WriteAt([]byte(`{"type":"user","timestamp":"2027`), 0) // rewritten in place, same size
	f.Close()
	expectInvalid("rewritten", src, c)

	src, _ = mk()
	expectInvalid("garbage", src, "t1.zz")
	expectInvalid("an OpenCode cursor", src, "o1.00000001.1.msg_x.0")

	oc := fixture(t, "opencode")
	pg := read(t, oc, Request{Last: 3})
	other := fixture(t, "opencode") // the same rows in another database file
	expectInvalid("another database", other, pg.Older)
	expectInvalid("a file cursor on OpenCode", oc, c)
	if _, ref := ReadSource(oc, Request{Last: 3, Before: pg.Older}); ref != nil {
		t.Errorf("the database's own cursor: %v", ref)
	}
}

// OpenCode's database is never written: its bytes are the same after a
// whole paging and an --event.
func TestOpenCodeReadOnly(t *testing.T) {
	src := fixture(t, "opencode")
	sum := func() [32]byte {
		b, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	before := sum()
	pgs := pages(t, src, 5)
	read(t, src, Request{Event: pgs[0][0].Cursor})
	if sum() != before {
		t.Error("reading changed opencode.db")
	}
	if _, ref := ReadSource(Source{Agent: "opencode", Path: src.Path, Session: "ses_nope"}, Request{Last: 1}); ref == nil || ref.Code != CodeNoTranscript {
		t.Errorf("a session not in the database: %v", ref)
	}
}

func TestLocate(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Getenv: func(string) string { return "" }}
	put := func(rel string) string {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(userLine(1, "x")+"\n"), 0o644)
		return p
	}
	cases := []struct {
		pane Pane
		want string
	}{
		{Pane{Agent: "claude", Session: "abc", CWD: "/tmp/lab/project"}, put(".claude/projects/-tmp-lab-project/abc.jsonl")},
		{Pane{Agent: "claude", Session: "def", CWD: "/elsewhere"}, put(".claude/projects/-moved/def.jsonl")},
		{Pane{Agent: "codex", Session: "0199"}, put(".codex/sessions/2026/12/01/rollout-2026-12-01T12-35-18-0199.jsonl")},
		{Pane{Agent: "gemini", Session: "b67a7a30-baf1-491f-93c8-afe654178f59"}, put(".gemini/tmp/project/chats/session-2026-12-01T12-36-b67a7a30.jsonl")},
		{Pane{Agent: "pi", Session: "01a2"}, put(".pi/agent/sessions/--tmp-lab-project--/2026-12-01T11-38-26-178Z_01a2.jsonl")},
		{Pane{Agent: "opencode", Session: "ses_1"}, put(".local/share/opencode/opencode.db")},
		{Pane{Agent: "pi", Session: "ignored", Transcript: put("stamped/elsewhere.jsonl")}, filepath.Join(home, "stamped/elsewhere.jsonl")},
		{Pane{Agent: "pi", Session: "01a2", Transcript: filepath.Join(home, "moved/away.jsonl")}, filepath.Join(home, ".pi/agent/sessions/--tmp-lab-project--/2026-12-01T11-38-26-178Z_01a2.jsonl")},
	}
	for _, c := range cases {
		c.pane.ID = "%1"
		src, ref := Locate(c.pane, env)
		if ref != nil || src.Path != c.want {
			t.Errorf("%+v: %q %v, want %q", c.pane, src.Path, ref, c.want)
		}
	}
	refusals := []struct {
		pane Pane
		code string
	}{
		{Pane{}, CodeNoTranscript},
		{Pane{Agent: "claude"}, CodeNoTranscript},
		{Pane{Agent: "claude", Session: "missing"}, CodeNoTranscript},
		{Pane{Agent: "claude", Session: "../../etc"}, CodeNoTranscript},
		{Pane{Agent: "opencode", Session: "not-ses"}, CodeNoTranscript},
		{Pane{Agent: "cursor", Session: "x", Transcript: "/x.jsonl"}, CodeStoreIncomplete},
		{Pane{Agent: "aider", Session: "x"}, CodeUnsupportedStore},
		{Pane{Agent: "claude", Transcript: filepath.Join(home, "gone.jsonl")}, CodeNoTranscript},
	}
	for _, c := range refusals {
		c.pane.ID = "%1"
		if _, ref := Locate(c.pane, env); ref == nil || ref.Code != c.code {
			t.Errorf("%+v: %v, want %s", c.pane, ref, c.code)
		}
	}
}

// A symlink out of the store is refused; one that stays inside is read.
func TestSymlinkOutOfStore(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Getenv: func(string) string { return "" }}
	proj := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(proj, 0o755)
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	os.WriteFile(outside, []byte(userLine(1, "secret")+"\n"), 0o644)
	os.Symlink(outside, filepath.Join(proj, "out.jsonl"))
	os.WriteFile(filepath.Join(proj, "real.jsonl"), []byte(userLine(1, "mine")+"\n"), 0o644)
	os.Symlink(filepath.Join(proj, "real.jsonl"), filepath.Join(proj, "in.jsonl"))
	for _, p := range []Pane{
		{ID: "%1", Agent: "claude", Session: "out", CWD: "/p"},
		{ID: "%1", Agent: "claude", Transcript: filepath.Join(proj, "out.jsonl")},
	} {
		if _, ref := Read(p, env, Request{Last: 1}); ref == nil || ref.Code != CodeIOError || !strings.Contains(ref.Message, "symlink") {
			t.Errorf("%+v: %v", p, ref)
		}
	}
	doc, ref := Read(Pane{ID: "%1", Agent: "claude", Session: "in", CWD: "/p"}, env, Request{Last: 1})
	if ref != nil || doc.Page.Events[0].Preview != "mine" {
		t.Errorf("a symlink inside the store: %v", ref)
	}
	os.Mkdir(filepath.Join(proj, "dir.jsonl"), 0o755)
	if _, ref := Read(Pane{ID: "%1", Agent: "claude", Transcript: filepath.Join(proj, "dir.jsonl")}, env, Request{Last: 1}); ref == nil || ref.Code != CodeIOError {
		t.Errorf("a directory for a transcript: %v", ref)
	}
}

// The released build reads OpenCode's database; one built with the
// noopencode tag refuses it as a store it does not serve.
func TestOpenCodeBuild(t *testing.T) {
	dir := t.TempDir()
	src := Source{Agent: "opencode", Path: filepath.Join(dir, "opencode.db"), Root: dir, Session: fixtures["opencode"].session}
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "transcripts", fixtures["opencode"].file))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(src.Path, b, 0o644)
	pg, ref := ReadSource(src, Request{Last: 1})
	if OpenCodeBuilt {
		if ref != nil || len(pg.Events) != 1 {
			t.Errorf("OpenCode's store: %v", ref)
		}
	} else if ref == nil || ref.Code != CodeUnsupportedStore {
		t.Errorf("a noopencode build: %v, want unsupported-store", ref)
	}
}
