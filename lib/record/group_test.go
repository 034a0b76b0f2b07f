package record

import (
	"bytes"
	"strings"
	"testing"
)

// stream writes records through a Writer, as an upstream stage does.
func stream(t *testing.T, recs ...any) string {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, r := range recs {
		if raw, ok := r.(string); ok {
			_ = w.WriteRaw([]byte(raw))
			continue
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReadGroupsRoundTrip: two cycles come back as two groups with their
// panes, rows, errors and an unknown kind kept verbatim; writing each group
// back gives the input again, byte for byte, in cycle order.
func TestReadGroupsRoundTrip(t *testing.T) {
	future := `{"v":1,"kind":"future","x":1}`
	in := stream(t,
		&Cycle{NowMS: 1, Server: "/s"}, &Pane{Pane: "%1"}, &Pane{Pane: "%2"}, &Row{}, future, &Error{Tool: "t", Message: "m"}, &End{NowMS: 1},
		&Cycle{NowMS: 2, Server: "/s"}, &End{NowMS: 2})
	var groups []*Group
	if err := ReadGroups(strings.NewReader(in), func(g *Group) error { groups = append(groups, g); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	g := groups[0]
	if g.Cycle.NowMS != 1 || len(g.Panes) != 2 || g.Panes[1].Pane != "%2" || len(g.Rows) != 1 || len(g.Errors) != 1 || g.End.NowMS != 1 {
		t.Fatalf("first group %+v", g)
	}
	if len(g.Other) != 1 || string(g.Other[0]) != future {
		t.Fatalf("the unknown kind was not kept verbatim: %q", g.Other)
	}
	if groups[1].Cycle.NowMS != 2 || len(groups[1].Panes) != 0 {
		t.Fatalf("second group %+v", groups[1])
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, g := range groups {
		w.WriteGroup(g)
	}
	_ = w.Flush()
	if out.String() != in {
		t.Fatalf("round trip:\n%s\nwant\n%s", out.String(), in)
	}
}

// TestReadGroupsLoneError: an error record outside any cycle (a stage that
// failed before its first cycle) is delivered at once as its own group.
func TestReadGroupsLoneError(t *testing.T) {
	in := stream(t, &Error{Tool: "tma-scan", Message: "no server", Code: 3})
	var got []*Group
	if err := ReadGroups(strings.NewReader(in), func(g *Group) error { got = append(got, g); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Cycle != nil || len(got[0].Errors) != 1 || got[0].Errors[0].ExitCode() != 3 {
		t.Fatalf("groups %+v", got)
	}
	if c := (&Error{}).ExitCode(); c != 1 {
		t.Errorf("an error record without a code asks for %d, want 1", c)
	}
}

// TestReadGroupsBrokenStreams: each broken stream is an error that says
// what broke, and no half cycle reaches fn.
func TestReadGroupsBrokenStreams(t *testing.T) {
	for name, c := range map[string]struct {
		in   string
		want string
	}{
		"truncated": {stream(t, &Cycle{}, &Pane{Pane: "%1"}), "input ended inside a cycle"},
		"nested":    {stream(t, &Cycle{}, &Cycle{}), "line 2: cycle opened before the previous one ended"},
		"outside":   {stream(t, &Pane{Pane: "%1"}), "records outside a cycle"},
		"malformed": {stream(t, &Cycle{}) + "{not json\n", "line 2: malformed record"},
		"version":   {`{"v":9,"kind":"cycle"}` + "\n", "unsupported record version 9"},
	} {
		calls := 0
		err := ReadGroups(strings.NewReader(c.in), func(*Group) error { calls++; return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
		if calls != 0 {
			t.Errorf("%s: fn ran %d times on a broken cycle", name, calls)
		}
	}
}
