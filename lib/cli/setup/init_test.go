package setupcmd

import "testing"

func TestRunsTmaStatus(t *testing.T) {
	for f, want := range map[string]bool{
		"#(tma status) %H:%M": true,
		"#(tma status)":       true,
		"#[fg=red]#(tma status --session #{session_name})": true,
		"#(/usr/local/bin/tma status)":                     true,
		"#(tma -L work status)":                            true,
		"#(tma --socket-path /tmp/x status --format tmux)": true,
		"set -g status-right '#(tma status) %H:%M'":        true,
		"#(tma-status)":                   false,
		"#(tma ls)":                       false,
		"#(mytma status)":                 false,
		"%H:%M":                           false,
		"":                                false,
		"#{@agent_session_summary} %H:%M": false,
	} {
		if got := RunsTmaStatus(f); got != want {
			t.Errorf("RunsTmaStatus(%q) = %v, want %v", f, got, want)
		}
	}
}

func TestStatusSetLine(t *testing.T) {
	for l, want := range map[string]bool{
		"set -g status-right '%H:%M'":       true,
		"set-option -g status-right \"x\"":  true,
		"  set -ag status-right ' #(date)'": true,
		"set -g status-right-length 80":     false,
		"set -g status-left '#S'":           false,
		"# set -g status-right x":           false,
		"bind r set -g status-right x":      false,
	} {
		if got := statusSetRE.MatchString(l); got != want {
			t.Errorf("%q: %v, want %v", l, got, want)
		}
	}
}

func TestGenericNames(t *testing.T) {
	for _, n := range []string{"node", "bun", "python3"} {
		if !generic(n) {
			t.Errorf("%s is a runtime", n)
		}
	}
	for _, n := range []string{"claude", "agent", "pi", "cursor-agent"} {
		if generic(n) {
			t.Errorf("%s is an agent name", n)
		}
	}
}
