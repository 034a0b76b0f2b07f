package screen

import (
	"slices"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/fixture"
)

// FuzzScreen feeds arbitrary captures, titles and region specs to the
// screen parser. Stripping leaves no ESC byte, keeps every newline (an
// unterminated string sequence ends at the line's end, so one stray byte
// cannot swallow a capture), changes nothing without an ESC and is
// idempotent; a region spec that parses prints back to itself; a region is
// the tail of the screen's lines it names.
func FuzzScreen(f *testing.F) {
	fxs, err := fixture.LoadDir("../../fixtures")
	if err != nil || len(fxs) == 0 {
		f.Fatalf("no fixtures (%v)", err)
	}
	specs := []string{"visible", "title", "tail_lines(5)", "bottom_non_empty_lines(3)", "tail_lines( 2 )", "tail_lines(0)", "bottom_non_empty_lines(", "nope"}
	for i, fx := range fxs {
		f.Add(fx.Screen, fx.Title, specs[i%len(specs)], fx.Height)
	}
	f.Add("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n\x1b[?25l\x1b(B\x1b", "\x1b]2;t\x07", "title", 2)
	f.Add("\x1bP\x1b[31m\nred\x1b_apc", "", "tail_lines(1)", 0)
	f.Fuzz(func(t *testing.T, raw, title, spec string, height int) {
		out := StripANSI(raw)
		if strings.IndexByte(out, esc) >= 0 {
			t.Fatalf("ESC left in %q", out)
		}
		if n, m := strings.Count(raw, "\n"), strings.Count(out, "\n"); n != m {
			t.Fatalf("%d newlines became %d: %q -> %q", n, m, raw, out)
		}
		if !strings.ContainsRune(raw, esc) && out != raw {
			t.Fatalf("text without escapes changed: %q -> %q", raw, out)
		}
		if again := StripANSI(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}

		s := Screen{Raw: raw, Title: title, Height: height}
		lines := s.Lines()
		if got := strings.Join(lines, "\n"); got != strings.TrimSuffix(out, "\n") {
			t.Fatalf("lines %q do not join to the stripped text %q", got, out)
		}
		r, err := ParseRegion(spec)
		if err != nil {
			if !strings.Contains(err.Error(), "region") {
				t.Fatalf("error does not name the region: %v", err)
			}
			return
		}
		if back, err := ParseRegion(r.String()); err != nil || back != r {
			t.Fatalf("%q parsed to %+v, printed as %q, read back as %+v (%v)", spec, r, r.String(), back, err)
		}
		reg := s.Region(r)
		switch r.Kind {
		case Title:
			if len(reg) != 1 || reg[0] != StripANSI(title) {
				t.Fatalf("title region = %q", reg)
			}
		default:
			if len(reg) > len(lines) {
				t.Fatalf("region of %d lines from %d", len(reg), len(lines))
			}
			if !slices.Equal(reg, lines[len(lines)-len(reg):]) && r.Kind != BottomNonEmpty {
				t.Fatalf("region %v is not the tail of the screen: %q", r, reg)
			}
			if r.N > 0 && len(reg) > r.N || r.Kind == Visible && height > 0 && len(reg) > height {
				t.Fatalf("region %v holds %d lines", r, len(reg))
			}
		}
	})
}
