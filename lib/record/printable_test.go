package record

import "testing"

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, printable, oneLine string }{
		{"plain title", "plain title", "plain title"},
		{"a\tb\nc", "a b c", "a b c"},
		{"\x1b[31mred\x07", " [31mred ", "[31mred"},
		{"csi\u009b31m c1", "csi 31m c1", "csi 31m c1"},
		{"del\x7f\x7fend", "del  end", "del end"},
		{"ünïcödé ✳ 漢字", "ünïcödé ✳ 漢字", "ünïcödé ✳ 漢字"},
		{"\u00a0nbsp stays", "\u00a0nbsp stays", "\u00a0nbsp stays"},
	} {
		if got := Printable(c.in); got != c.printable {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.printable)
		}
		if got := OneLine(c.in); got != c.oneLine {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.oneLine)
		}
	}
}
