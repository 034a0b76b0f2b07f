package tmux

import (
	"testing"

	"github.com/tmaproject/tma/lib/tmux/ctlclient"
)

func TestControlFor(t *testing.T) {
	for _, c := range []struct {
		version string
		mode    Control
		format  ctlclient.Format
	}{
		{"3.3", ControlOwn, ctlclient.FormatFlags},
		{"3.3a", ControlOwn, ctlclient.FormatFlags},
		{"3.4", ControlOwn, ctlclient.FormatFlags},
		{"3.5a", ControlOwn, ctlclient.FormatFlags},
		{"3.6", ControlOwn, ctlclient.FormatMark}, // the new imsg header (compat/imsg.h at 3.6)
		{"3.6b", ControlOwn, ctlclient.FormatMark},
		{"3.7", ControlOwn, ctlclient.FormatMark},
		{"3.7c", ControlOwn, ctlclient.FormatMark},
		{"next-3.6", ControlOwn, ctlclient.FormatMark},
		{"3.7d", ControlTmux, 0}, // newer than the table: tmux's own client, which has the fix
		{"3.8", ControlTmux, 0},
		{"next-3.8", ControlTmux, 0},
		{"3.10", ControlTmux, 0},
		{"4.0", ControlTmux, 0},
		{"master", ControlTmux, 0},
		{"3.2a", ControlPoll, 0}, // older than tma supports
		{"2.9", ControlPoll, 0},
		{"openbsd-7.6", ControlPoll, 0}, // unreadable: no header is guessed
		{"", ControlPoll, 0},
		{"3.", ControlPoll, 0},
		{"3.3aa", ControlPoll, 0},
		{"x.3", ControlPoll, 0},
	} {
		got := ControlFor(c.version)
		if got.Mode != c.mode || got.Format != c.format || got.Why == "" {
			t.Errorf("ControlFor(%q) = %v format %d (%q), want %v format %d", c.version, got.Mode, got.Format, got.Why, c.mode, c.format)
		}
	}
}
