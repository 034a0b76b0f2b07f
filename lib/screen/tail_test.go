package screen

import (
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	rows := func(n int, pre string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(pre)
			b.WriteString(strings.Repeat("x", i%3))
			b.WriteString("\n")
		}
		return b.String()
	}
	prompt := "\x1b[1m> Do you want to proceed?\x1b[0m\n"
	for _, c := range []struct {
		name, in string
		rows     int
		want     string
	}{
		{"empty", "", 10, ""},
		{"all blank", "\n\n  \n\x1b[0m\n", 10, ""},
		{"short screen kept whole", "a\nb\n", 10, "a\nb\n"},
		{"trailing blanks dropped", "a\nb\n\n   \n\x1b[39m\x1b[0m  \n", 0, "a\nb\n"},
		{"the bottom of a tall pane", rows(45, "row ") + prompt + "\n\n\n\n", 3, "row xx\nrow \n" + prompt},
		{"no final newline", "a\nb", 1, "b\n"},
		{"rows <= 0 keeps every row", "a\nb\n", 0, "a\nb\n"},
	} {
		if got := Tail(c.in, c.rows); got != c.want {
			t.Errorf("%s: Tail(…, %d) = %q, want %q", c.name, c.rows, got, c.want)
		}
	}
}
