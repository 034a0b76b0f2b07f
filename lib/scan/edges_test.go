package scan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEdges(t *testing.T) {
	var e Edges
	if n := e.Next(1000); n != 0 {
		t.Fatalf("Next with nothing pending = %d, want 0", n)
	}
	e.Note(map[string]int64{"%1": 10_000, "%2": 10_500})
	if n := e.Next(1000); n != 11_000 {
		t.Fatalf("Next = %d, want 11000 (%%1's output + quiet)", n)
	}
	if d := e.Due(10_999, 1000); d != nil {
		t.Fatalf("Due before the window closed = %v", d)
	}
	// %2 keeps writing: its edge moves with the burst.
	e.Note(map[string]int64{"%2": 11_200})
	// An older time (a take that raced a newer one) never moves it back.
	e.Note(map[string]int64{"%2": 10_700})
	if d := e.Due(11_000, 1000); !cmp.Equal(d, map[string]int64{"%1": 10_000}) {
		t.Fatalf("Due at 11000 = %v, want only %%1's edge", d)
	}
	if d := e.Due(11_500, 1000); d != nil {
		t.Fatalf("%%1's edge reported twice, or %%2's early: %v", d)
	}
	if n := e.Next(1000); n != 12_200 {
		t.Fatalf("Next = %d, want 12200", n)
	}
	if d := e.Due(12_200, 1000); !cmp.Equal(d, map[string]int64{"%2": 11_200}) {
		t.Fatalf("Due at 12200 = %v, want %%2's edge at its last output", d)
	}
	if n := e.Next(1000); n != 0 {
		t.Fatalf("Next after every edge was reported = %d", n)
	}
}
