package install

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseListKeys(t *testing.T) {
	out := `bind-key    -T prefix g       run-shell "/x/bin/tma jump --blocked --client \"#{client_name}\""
bind-key -r -T prefix \{      run-shell "tma jump --home"
bind-key    -T prefix '"'     split-window
bind-key -T root MouseDown1Status if-shell -F x
not a binding`
	want := []Bound{
		{"prefix", "g", `run-shell "/x/bin/tma jump --blocked --client \"#{client_name}\""`},
		{"prefix", "{", `run-shell "tma jump --home"`},
		{"prefix", `"`, "split-window"},
		{"root", "MouseDown1Status", "if-shell -F x"},
	}
	if got := ParseListKeys(out); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseListKeys:\n got %q\nwant %q", got, want)
	}
}

func TestParseConfBinds(t *testing.T) {
	conf := "set -g prefix C-a\nbind h select-pane -L\nbind-key -r j resize-pane -D 5\nbind -n M-g run-shell x\nbind -T copy-mode-vi v send -X begin-selection\nbind -N 'a note' a send-prefix\nbind '{' swap-pane -U\n# bind x kill-server\n"
	want := []Bound{
		{"prefix", "h", "select-pane -L"},
		{"prefix", "j", "resize-pane -D 5"},
		{"root", "M-g", "run-shell x"},
		{"copy-mode-vi", "v", "send -X begin-selection"},
		{"prefix", "a", "send-prefix"},
		{"prefix", "{", "swap-pane -U"},
	}
	got := ParseConfBinds([]byte(conf))
	// -N's note is one word here; what matters is the key and table.
	if len(got) != len(want) {
		t.Fatalf("ParseConfBinds: %q", got)
	}
	for i := range want {
		if got[i].Table != want[i].Table || got[i].Key != want[i].Key {
			t.Errorf("bind %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func TestTmaCall(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{`display-popup -E -h "60%" -w "80%" /x/bin/tma`, "/x/bin/tma"},
		{`run-shell "tma act --menu"`, "tma"},
		{`run-shell '/a/tma'`, "/a/tma"},
		{`if-shell -F x { run-shell 'tma jump --blocked' }`, "tma"},
		{`run-shell "tmux ls"`, ""},
		{`run-shell "tma-hook claude Stop"`, ""},
		{`split-window -h`, ""},
		{`run-shell "/x/notma jump"`, ""},
	} {
		if got := TmaCall(c.cmd); got != c.want {
			t.Errorf("TmaCall(%s) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

// TestShadowed: every key the file binds that the server binds to
// something else is named; tma's own bindings (a re-install) are not.
func TestShadowed(t *testing.T) {
	now := ParseConfBinds([]byte("bind h select-pane -L\nbind j select-pane -D\nbind a send-prefix\nbind g run-shell 'tma jump --blocked'\nbind x kill-pane\n"))
	got := Shadowed(KeysSpec{}, now)
	want := []string{"replaces your prefix j: select-pane -D", "replaces your prefix h: select-pane -L", "replaces your prefix a: send-prefix"}
	for _, w := range want {
		if !strings.Contains(strings.Join(got, "\n"), w) {
			t.Errorf("Shadowed lacks %q: %q", w, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("Shadowed = %q", got)
	}
	// Chosen keys move the question: h is left alone, k is taken.
	got = Shadowed(KeysSpec{Keys: map[string]string{"home": "H", "attention": "x", "picker": ""}}, now)
	if strings.Join(got, "\n") != "replaces your prefix x: kill-pane" {
		t.Errorf("Shadowed with chosen keys = %q", got)
	}
}

// TestShadowedStock: a key tmux binds by default is named as tmux's, not
// the user's (the status-line clicks --mouse takes over, a prefix key a
// user moved a binding onto); the user's own command on it is theirs.
func TestShadowedStock(t *testing.T) {
	now := ParseListKeys(`bind-key    -T root         MouseDown1Status     select-window -t =
bind-key    -T root         MouseDown3Status     display-menu -T "#[align=centre]#{window_index}:#{window_name}" -t = -x W -y W Kill X { kill-window }
bind-key    -T root         MouseDown1StatusRight run-shell 'my-clock'
bind-key    -T prefix       w                    choose-tree -Zw
`)
	got := strings.Join(Shadowed(KeysSpec{Mouse: true, Keys: map[string]string{"picker": "w"}}, now), "\n")
	for _, w := range []string{
		"replaces tmux's default root MouseDown1Status: select-window -t =",
		"replaces tmux's default root MouseDown3Status: display-menu",
		"replaces your root MouseDown1StatusRight: run-shell 'my-clock'",
		"replaces tmux's default prefix w: choose-tree -Zw",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("Shadowed lacks %q:\n%s", w, got)
		}
	}
	// 3.7c's default left click switches the client instead.
	if !Stock("root", "MouseDown1Status", "switch-client -t =") || Stock("prefix", "w", "kill-server") || Stock("prefix", "h", "select-pane -L") {
		t.Error("Stock misjudged a binding")
	}
}

func TestResolveKeys(t *testing.T) {
	k, err := ResolveKeys(map[string]string{"blocked": "C-g", "picker": ""}, "[keys] ")
	if err != nil || k["blocked"] != "C-g" || k["picker"] != "" || k["home"] != "h" {
		t.Fatalf("%v %v", k, err)
	}
	for _, c := range []struct {
		chosen map[string]string
		want   string
	}{
		{map[string]string{"pickr": "p"}, "[keys] pickr: no such binding"},
		{map[string]string{"blocked": "a"}, `[keys] blocked: "a" is picker's key too`},
		{map[string]string{"home": "two words"}, `[keys] home: "two words" is not a tmux key name`},
	} {
		if _, err := ResolveKeys(c.chosen, "[keys] "); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.chosen, err, c.want)
		}
	}
}

func TestTmuxKey(t *testing.T) {
	for k, want := range map[string]string{"g": "g", "C-g": "C-g", "F5": "F5", "{": "'{'", "M-;": "'M-;'", "'": `"'"`, "#": "'#'"} {
		if got := TmuxKey(k); got != want {
			t.Errorf("TmuxKey(%s) = %s, want %s", k, got, want)
		}
	}
}

func TestParseShowOptions(t *testing.T) {
	out := "@tma-key-a \\{\n@tma-key-b \\'\n@tma-key-d C-a\n@tma-key-f \"two words\"\n@tma-mouse on\n@other x\nstatus on\n"
	want := map[string]string{"@tma-key-a": "{", "@tma-key-b": "'", "@tma-key-d": "C-a", "@tma-key-f": "two words", "@tma-mouse": "on"}
	if got := ParseShowOptions(out, "@tma-"); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseShowOptions = %q", got)
	}
}
