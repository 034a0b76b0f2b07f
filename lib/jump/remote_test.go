package jump

import (
	"strings"
	"testing"
)

func TestRemoteWindowPane(t *testing.T) {
	listing := "%1\tzsh\n%4\tbuild:%3\n%5\tbuild:%3\n%6\tbuild:%30\n"
	if got := RemoteWindowPane(listing, "build:%3"); got != "%4" {
		t.Errorf("got %q", got)
	}
	if got := RemoteWindowPane(listing, "vm:%3"); got != "" {
		t.Errorf("got %q for a window that is not there", got)
	}
}

func TestRemoteWindow(t *testing.T) {
	l, err := RemoteWindow("@2", "build:%3", []string{"ssh", "-t", "build", "tma", "-S", "/tmp/a b", "attach", "--pane", "%3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"new-window -a -t @2 -n ", "build:%3", "-P -F '#{pane_id}' ", "'/tmp/a b'", "attach", "read -r _"} {
		if !strings.Contains(l, want) {
			t.Errorf("%q lacks %q", l, want)
		}
	}
	if _, err := RemoteWindow("%2", "x", []string{"ssh"}); err == nil {
		t.Error("a pane id was taken for a window")
	}
}
