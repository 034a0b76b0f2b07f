package record_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/record"
)

// FuzzReader feeds arbitrary bytes to the NDJSON reader every filter runs
// on its stdin. Whatever the bytes, it ends (at EOF or at the first
// malformed line, which it names), never returns more lines than the input
// holds, and a record it does decode re-encodes to a line that decodes to
// the same encoding: what one stage writes, the next reads back unchanged.
func FuzzReader(f *testing.F) {
	for _, s := range seedStreams(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := record.NewReader(bytes.NewReader(data))
		limit := bytes.Count(data, []byte("\n")) + 1
		for n := 0; ; n++ {
			if n > limit {
				t.Fatalf("more than %d lines read from %d bytes", limit, len(data))
			}
			line, _, v, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !bytes.Contains([]byte(err.Error()), []byte("line ")) {
					t.Fatalf("error does not name its line: %v", err)
				}
				return
			}
			if r.Line() < 1 || r.Line() > limit {
				t.Fatalf("line number %d outside 1..%d", r.Line(), limit)
			}
			if v == nil {
				continue // a kind this package does not know, passed through raw
			}
			once := encode(t, v)
			_, v2, err := record.Unmarshal(once)
			if err != nil {
				t.Fatalf("re-encoded record does not decode: %v\nline:   %q\nencode: %q", err, line, once)
			}
			if twice := encode(t, v2); !bytes.Equal(once, twice) {
				t.Fatalf("encoding is not stable across a decode:\nline:   %q\nfirst:  %q\nsecond: %q", line, once, twice)
			}
		}
	})
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	w := record.NewWriter(&b)
	if err := w.Write(v); err != nil {
		t.Fatalf("a decoded %T does not encode: %v", v, err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// seedStreams is one well-formed cycle per captured screen in fixtures/,
// written the way tma-scan and tma-stamp write them, plus the shapes a
// reader must refuse or pass on.
func seedStreams(f *testing.F) [][]byte {
	fxs, err := fixture.LoadDir("../../fixtures")
	if err != nil || len(fxs) == 0 {
		f.Fatalf("no fixtures found (%v)", err)
	}
	var out [][]byte
	for i, fx := range fxs {
		if i%4 != 0 { // a quarter of them: the screens differ little in shape
			continue
		}
		var b bytes.Buffer
		w := record.NewWriter(&b)
		now := int64(1800000000000)
		detail := fx.Detail
		_ = w.Write(&record.Cycle{NowMS: now, Server: "/tmp/s", Host: "h", TmuxVersion: "3.3a", Clients: []record.Client{{Name: "/dev/pts/1", Pane: "%1", Session: "s", Activity: 1800000000}}})
		_ = w.Write(&record.Pane{NowMS: now, Pane: "%1", Session: "s", Command: fx.Command, Title: fx.Title, Width: fx.Width, Height: fx.Height, Scroll: -1,
			Opts: map[string]string{"@agent_state": fx.State}, Agent: fx.Agent, Identity: "process",
			Capture: &record.Capture{AtMS: now, Text: fx.Screen},
			Verdict: &record.Verdict{State: fx.State, Detail: fx.Detail, Action: record.ActPublish, Source: "capture", Anchors: map[string]int64{"@tma_idle_since": now}, Rules: []record.RuleTrace{{Index: 1, State: fx.State, Region: "visible", Matched: true, Excerpt: "x"}}}})
		_ = w.Write(&record.Row{NowMS: now, Row: record.AgentRow{Pane: "%1", Agent: fx.Agent, State: fx.State, Detail: &detail, Title: fx.Title}, TmuxSession: "s", Source: "capture"})
		_ = w.Write(&record.Error{Tool: "tma-scan", Message: "no server", Code: 3})
		_ = w.Write(&record.End{NowMS: now})
		_ = w.Flush()
		out = append(out, b.Bytes())
	}
	return append(out,
		[]byte(`{"v":1,"kind":"future-kind","x":1}`+"\n"),
		[]byte(`{"v":2,"kind":"pane"}`+"\n"),
		[]byte(`{"v":1}`+"\n\n\r\n"),
		[]byte(`{"v":1,"kind":"pane","opts":{"@agent_state":"\u0000"},"capture":null}`),
		[]byte("not json\n"),
	)
}
