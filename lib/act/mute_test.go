package act

import (
	"strings"
	"testing"
	"time"
)

func TestParseMuteFor(t *testing.T) {
	ok := map[string]int64{
		"90": 90_000, "45s": 45_000, "30m": 1_800_000, "2h": 7_200_000, "1d": 86_400_000,
		"1": 1000, "007m": 420_000, "100000d": 100_000 * 86_400_000,
	}
	for in, want := range ok {
		got, err := ParseMuteFor(in)
		if err != nil || got != want {
			t.Errorf("ParseMuteFor(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := []string{"", "0", "0s", "00m", "s", "m", "-5", "+5", "1.5h", "1h30m", "5 m", " 5", "5M", "5ms", "5w",
		"1e3", "0x10", "٣", "99999999999999999999", "999999999999d"}
	for _, in := range bad {
		if got, err := ParseMuteFor(in); err == nil {
			t.Errorf("ParseMuteFor(%q) = %d, want an error", in, got)
		}
	}
	if _, err := ParseMuteFor("0"); err == nil || !strings.Contains(err.Error(), "over before it starts") {
		t.Errorf("zero's error: %v", err)
	}
}

func TestMuteUntil(t *testing.T) {
	if got := MuteUntil(1_000, 0); got != 99999999999999 {
		t.Errorf("indefinite = %d", got)
	}
	if got := MuteUntil(1_000, 5_000); got != 6_000 {
		t.Errorf("deadline = %d", got)
	}
	// The longest --for stays below the sentinel, so it is never read as
	// "until cleared".
	maxFor, err := ParseMuteFor("578703d")
	if err != nil {
		t.Fatal(err)
	}
	if MuteUntil(time.Now().UnixMilli(), maxFor) >= MuteIndefinite {
		t.Errorf("a finite mute reached the indefinite sentinel")
	}
}

func TestDescribeMute(t *testing.T) {
	loc := time.UTC
	if got := DescribeMute(MuteIndefinite, 0, loc); got != "until cleared" {
		t.Errorf("indefinite: %q", got)
	}
	for forMS, want := range map[int64]string{90_000: "90s", 1_800_000: "30m", 7_200_000: "2h", 86_400_000: "1d", 5_400_000: "90m"} {
		got := DescribeMute(1_700_000_000_000+forMS, forMS, loc)
		if !strings.HasPrefix(got, "for "+want+" (until 2023-11-") {
			t.Errorf("DescribeMute(%d) = %q, want for %s (until …)", forMS, got, want)
		}
	}
}
