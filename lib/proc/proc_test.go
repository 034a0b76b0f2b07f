package proc

import (
	"context"
	"os"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

func TestParseStat(t *testing.T) {
	p, ok := parseStat(42, []byte("42 (we (ird) name) S 7 42 42 34816 42 4194560 0 0"))
	if !ok || p.Comm != "we (ird) name" || p.PPID != 7 || p.PGID != 42 || p.TPGID != 42 {
		t.Fatalf("got %+v ok=%v", p, ok)
	}
	if _, ok := parseStat(1, []byte("garbage")); ok {
		t.Fatal("garbage parsed")
	}
}

func TestTreeAndContains(t *testing.T) {
	tb := FromList([]Proc{{PID: 1, PPID: 0, Comm: "init"}, {PID: 10, PPID: 1, Comm: "bash"},
		{PID: 11, PPID: 10, Comm: "node"}, {PID: 12, PPID: 11, Comm: "codex"}, {PID: 20, PPID: 1, Comm: "zsh"}})
	var got []string
	for _, p := range tb.Tree(10) {
		got = append(got, p.Comm)
	}
	if len(got) != 3 || got[0] != "bash" || got[2] != "codex" {
		t.Fatalf("tree = %v", got)
	}
	if !tb.Contains(10, 12) || tb.Contains(10, 20) || tb.Contains(11, 10) {
		t.Fatal("contains wrong")
	}
}

func TestWalkFindsSelf(t *testing.T) {
	tb, err := Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := tb.Get(os.Getpid())
	if p == nil || p.PPID != os.Getppid() {
		t.Fatalf("self not found: %+v", p)
	}
	if names := tb.Names(p); len(names) == 0 || names[0] == "" {
		t.Fatalf("names = %v", names)
	}
}

func TestWalkPSFindsSelf(t *testing.T) {
	testkit.Need(t, "ps")
	tb, err := walkPS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := tb.Get(os.Getpid())
	if p == nil || p.PPID != os.Getppid() || p.Comm == "" {
		t.Fatalf("self not found through ps: %+v", p)
	}
	if !tb.Contains(os.Getppid(), os.Getpid()) {
		t.Fatal("the ps table has no tree")
	}
}
