package screen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStripANSI(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello ❯ world", "hello ❯ world"},
		{"empty", "", ""},
		{"sgr", "\x1b[1;38;5;208mbold\x1b[0m text", "bold text"},
		{"sgr colon params", "\x1b[38:2::10:20:30mrgb\x1b[39m", "rgb"},
		{"private csi", "\x1b[?25lhidden\x1b[?25h", "hidden"},
		{"osc bel", "\x1b]0;my title\x07after", "after"},
		{"osc st", "\x1b]8;;https://example.test\x1b\\link\x1b]8;;\x1b\\ end", "link end"},
		{"dcs st", "a\x1bPtmux;data\x1b\\b", "ab"},
		{"two byte", "a\x1b=b\x1b>c\x1b7d\x1b8", "abcd"},
		{"charset", "\x1b(Bline", "line"},
		{"unterminated osc stops at newline", "x\x1b]0;title\nnext", "x\nnext"},
		{"osc cut by new escape", "x\x1b]0;t\x1b[31my", "xy"},
		{"trailing esc", "text\x1b", "text"},
		{"trailing csi", "text\x1b[3", "text"},
		{"multibyte kept", "\x1b[2m✶ Thinking… (3s)\x1b[22m", "✶ Thinking… (3s)"},
		{"trailing spaces kept", "\x1b[7m  \x1b[0m  \n", "    \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripANSI(tt.in); got != tt.want {
				t.Errorf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseRegion(t *testing.T) {
	tests := []struct {
		spec    string
		want    Region
		wantErr string
	}{
		{"tail_lines(30)", Region{TailLines, 30}, ""},
		{"bottom_non_empty_lines(6)", Region{BottomNonEmpty, 6}, ""},
		{"bottom_non_empty_lines( 6 )", Region{BottomNonEmpty, 6}, ""},
		{"visible", Region{Kind: Visible}, ""},
		{"title", Region{Kind: Title}, ""},
		{"tail_lines(0)", Region{}, "positive integer"},
		{"tail_lines(x)", Region{}, "positive integer"},
		{"tail_lines(3", Region{}, "closing parenthesis"},
		{"screen", Region{}, "unknown region"},
		{"", Region{}, "unknown region"},
	}
	for _, tt := range tests {
		got, err := ParseRegion(tt.spec)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRegion(%q) error = %v, want it to contain %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRegion(%q): %v", tt.spec, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseRegion(%q) = %+v, want %+v", tt.spec, got, tt.want)
		}
		if back := got.String(); strings.ReplaceAll(tt.spec, " ", "") != back {
			t.Errorf("Region.String() = %q, want %q", back, tt.spec)
		}
	}
}

func TestRegion(t *testing.T) {
	// A synthetic capture: eight rows, the last two blank or whitespace-only.
	raw := "one\n\x1b[1mtwo\x1b[0m\nthree\nfour\nfive\nsix\n   \n\x1b[0m\n"
	tests := []struct {
		name   string
		region Region
		height int
		want   []string
	}{
		{"tail 3 keeps blank rows", Region{TailLines, 3}, 0, []string{"six", "   ", ""}},
		{"tail larger than capture", Region{TailLines, 50}, 0, []string{"one", "two", "three", "four", "five", "six", "   ", ""}},
		{"bottom non-empty 2", Region{BottomNonEmpty, 2}, 0, []string{"five", "six"}},
		{"visible uses height", Region{Kind: Visible}, 4, []string{"five", "six", "   ", ""}},
		{"visible without height is everything", Region{Kind: Visible}, 0, []string{"one", "two", "three", "four", "five", "six", "   ", ""}},
		{"title", Region{Kind: Title}, 0, []string{"✳ probe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Screen{Raw: raw, Title: "\x1b[1m✳ probe", Height: tt.height}
			if diff := cmp.Diff(tt.want, s.Region(tt.region)); diff != "" {
				t.Errorf("Region(%v) mismatch (-want +got):\n%s", tt.region, diff)
			}
		})
	}
}

func TestBottomNonEmptyAllBlank(t *testing.T) {
	s := Screen{Raw: "\n  \n\n"}
	if got := s.Region(Region{BottomNonEmpty, 3}); len(got) != 0 {
		t.Errorf("got %q, want no lines", got)
	}
}

func TestText(t *testing.T) {
	s := Screen{Raw: "\x1b[31ma\x1b[0m\nb\n"}
	if got := s.Text(); got != "a\nb" {
		t.Errorf("Text() = %q", got)
	}
}

func BenchmarkStripANSI(b *testing.B) {
	line := "\x1b[38;5;246m│\x1b[39m \x1b[1m❯\x1b[22m some text that an agent drew \x1b[2m(3s · ↓ 12 tokens)\x1b[22m\n"
	s := strings.Repeat(line, 60)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		StripANSI(s)
	}
}
