package tmux

import "testing"

func TestFramer(t *testing.T) {
	var f framer
	type step struct {
		line   string
		inside bool
		out    string // "" no block; "-" a block of someone else's command
		failed bool
	}
	steps := []step{
		{"%begin 1700000000 10 0", true, "", false},
		{"%end 1700000000 10 0", true, "", false}, // the attach's own block: not ours
		{"%output %1 hello", false, "", false},
		{"%begin 1700000001 11 1", true, "", false},
		{"TMAPx\x1f%1", true, "", false},
		{"%output %2 a title's text", true, "", false}, // content, not a push
		{"%end 1700000001 99 1", true, "", false},      // another number: content
		{"%end 1700000001 11 1", true, "TMAPx\x1f%1\n%output %2 a title's text\n%end 1700000001 99 1\n", false},
		{"%begin 1700000002 12 1", true, "", false},
		{"%error 1700000002 12 1", true, "", true},
		{"%window-add @3", false, "", false},
	}
	for i, s := range steps {
		b, inside := f.line(s.line)
		if inside != s.inside {
			t.Fatalf("step %d %q: inside = %v, want %v", i, s.line, inside, s.inside)
		}
		switch {
		case s.out == "" && !s.failed:
			if b != nil {
				t.Fatalf("step %d %q: block %+v, want none", i, s.line, b)
			}
		case b == nil || b.out != s.out || b.failed != s.failed:
			t.Fatalf("step %d %q: block %+v, want %q failed=%v", i, s.line, b, s.out, s.failed)
		}
	}
}

func TestListControlRefusesAShortList(t *testing.T) {
	// The windows hold two panes; only one pane line came back (a forged
	// %end cut the block): the snapshot is refused.
	s, err := ParseList(listHead() + paneLine("%1", "t", nil) + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.held != 3 || len(s.Panes) != 1 {
		t.Fatalf("held %d, panes %d", s.held, len(s.Panes))
	}
}
