package common

import "testing"

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{
		"Ls": "ls", "DryRun": "dry-run", "JSON": "json", "FromDaemon": "from-daemon",
		"InstallHooks": "install-hooks", "HTTPServer": "http-server", "Pane2ID": "pane2-id",
	} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommandWord(t *testing.T) {
	flags := map[string]rootFlag{"--socket-name": {true}, "-L": {true}, "--verbose": {false}}
	for _, c := range []struct {
		args []string
		word string
		ok   bool
	}{
		{[]string{"status"}, "status", true},
		{[]string{"-L", "x", "status"}, "status", true},
		{[]string{"--socket-name=x", "--verbose", "ls", "--json"}, "ls", true},
		{[]string{"--socket-name", "ls", "status"}, "status", true}, // ls is the flag's value
		{[]string{"--help", "status"}, "", false},
		{[]string{"status", "--help"}, "status", true}, // help after the word is kong's, on the pruned grammar
		{[]string{"--unknown", "status"}, "", false},
		{[]string{"--", "status"}, "", false},
		{nil, "", false},
	} {
		w, ok := commandWord(flags, c.args)
		if w != c.word || ok != c.ok {
			t.Errorf("commandWord(%q) = %q, %v; want %q, %v", c.args, w, ok, c.word, c.ok)
		}
	}
}
