package notify

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/tmux"
)

// The terminal sequences. Each travels out of tmux in its passthrough
// envelope (which needs allow-passthrough on); a bare BEL needs none.
const (
	BEL           = "\a"
	ProgressOn    = "\x1b]9;4;3\a" // indeterminate
	ProgressClear = "\x1b]9;4;0\a"
)

// OSC9 is the desktop notification: the fixed text "<agent> <state>", never
// the title (a pane's program writes that, and an escape sequence is no
// place for text tma does not control).
func OSC9(agent, state string) string { return "\x1b]9;" + clean(agent) + " " + clean(state) + "\a" }

// OSC777 is the form Ghostty and WezTerm read: agent as title, state as body.
func OSC777(agent, state string) string {
	return "\x1b]777;notify;" + clean(agent) + ";" + clean(state) + "\a"
}

// Passthrough wraps a sequence in tmux's envelope: ESC P tmux; with every
// ESC inside doubled, then ST.
func Passthrough(seq string) string {
	return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
}

// clean keeps a sequence's text free of anything that could end it early.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if record.IsControl(r) || r == ';' {
			return -1
		}
		return r
	}, s)
}

// TTYBytes is what the bell and OSC sinks write to the firing pane's tty.
func TTYBytes(bell, osc, osc777 bool, agent, state string) string {
	var b strings.Builder
	if bell {
		b.WriteString(BEL)
	}
	if osc {
		b.WriteString(Passthrough(OSC9(agent, state)))
	}
	if osc777 {
		b.WriteString(Passthrough(OSC777(agent, state)))
	}
	return b.String()
}

// WriteTTY writes to a pane's tty as if the pane's program printed it, so
// tmux handles the bell and the passthrough. It never blocks: a pane whose
// reader is stuck loses the sequence rather than hang the firer.
func WriteTTY(path, data string) error {
	if data == "" {
		return nil
	}
	if !strings.HasPrefix(path, "/dev/") {
		return errors.New("not a tty path: " + path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(data)
	return err
}

// Message is the status-line text every attached client is shown: the
// host-local baseline, which always names the title.
func Message(f *Fired, state string) string {
	m := "tma: " + f.Agent + " " + state
	if f.Detail != "" && state == f.State {
		m += "/" + f.Detail
	}
	m += " in " + f.Locator
	if t := record.OneLine(f.Title); t != "" {
		m += " — " + t
	}
	return m
}

// DisplayLines are the display-message commands for every attached client
// (control clients, the daemon's among them, have no status line).
func DisplayLines(clients []string, msg string) []string {
	var lines []string
	text := tmux.Quote(tmux.DisplayText(record.OneLine(msg)))
	for _, c := range clients {
		if c == "" || strings.HasPrefix(c, "client-") || strings.ContainsAny(c, "'\n") {
			continue
		}
		lines = append(lines, "display-message -c "+tmux.Quote(c)+" "+text)
	}
	return lines
}
