package tmux

import (
	"fmt"
	"strings"

	"github.com/tmaproject/tma/lib/tmux/ctlclient"
)

// Control is how a follower's control-mode clients reach a server.
type Control int

const (
	// ControlPoll: none at all; the follower polls.
	ControlPoll Control = iota
	// ControlOwn: tma's own in-process client (ctlclient), which the
	// server reads as a control client only in one final, whole read.
	ControlOwn
	// ControlTmux: `tmux -C`, tmux's own client, on releases that no longer
	// crash on a half-identified control client.
	ControlTmux
)

func (m Control) String() string {
	switch m {
	case ControlOwn:
		return "own"
	case ControlTmux:
		return "tmux"
	}
	return "poll"
}

// ControlChoice is the control mode a server's version gets, with the
// header format for ControlOwn and why, in words doctor prints.
type ControlChoice struct {
	Mode   Control
	Format ctlclient.Format
	Why    string
}

// ControlFor chooses the control mode for a server of the given version
// (#{version}: "3.3a", "3.6b", "next-3.8", "master").
//
// Every release from 3.3 to 3.7c gets tma's own client, whose identify
// cannot be met half-done (tmux before 3.7 crashes on that; 3.7 fixed it,
// and the own client there also saves a tmux process per attach). A
// release newer than the newest this table knows gets `tmux -C`: it has
// the fix, and tmux's own client speaks whatever it changed. A version
// that cannot be read, or older than tma supports, is polled: a header
// misread by the server is fatal to it, so none is guessed.
func ControlFor(version string) ControlChoice {
	ma, mi, letter, ok := parseVersion(version)
	switch {
	case version == "master":
		return ControlChoice{Mode: ControlTmux, Why: "tmux built from its master branch is newer than 3.7, which fixed the control-client crash: tmux's own client (tmux -C)"}
	case !ok:
		return ControlChoice{Mode: ControlPoll, Why: fmt.Sprintf("tmux version %q cannot be read, so tma cannot tell its client protocol's header: polling", version)}
	case ma < 3 || ma == 3 && mi < 3:
		return ControlChoice{Mode: ControlPoll, Why: fmt.Sprintf("tmux %s is older than 3.3, the oldest tma supports: polling", version)}
	case ma == 3 && mi < 6:
		return ControlChoice{Mode: ControlOwn, Format: ctlclient.FormatFlags, Why: fmt.Sprintf("tmux %s crashes when a control client still identifying meets a notification (fixed in 3.7); tma's own control client identifies in one read, so it never is one", version)}
	case ma == 3 && mi < 7:
		return ControlChoice{Mode: ControlOwn, Format: ctlclient.FormatMark, Why: fmt.Sprintf("tmux %s crashes when a control client still identifying meets a notification (fixed in 3.7); tma's own control client identifies in one read, so it never is one", version)}
	case ma == 3 && mi == 7 && letter <= 'c':
		return ControlChoice{Mode: ControlOwn, Format: ctlclient.FormatMark, Why: fmt.Sprintf("tmux %s: tma's own control client (one process fewer per attach than tmux -C)", version)}
	}
	return ControlChoice{Mode: ControlTmux, Why: fmt.Sprintf("tmux %s is newer than any tma knows the client protocol of, and has 3.7's fix: tmux's own client (tmux -C)", version)}
}

// parseVersion reads "3.3a", "3.6", "next-3.8"; letter is 0 with none.
// A "next-" build is counted as that release.
func parseVersion(v string) (major, minor int, letter byte, ok bool) {
	v = strings.TrimPrefix(v, "next-")
	dot := strings.IndexByte(v, '.')
	if dot <= 0 {
		return 0, 0, 0, false
	}
	if _, err := fmt.Sscanf(v[:dot], "%d", &major); err != nil {
		return 0, 0, 0, false
	}
	rest := v[dot+1:]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		minor = minor*10 + int(rest[i]-'0')
		i++
	}
	if i == 0 || i > 3 {
		return 0, 0, 0, false
	}
	switch tail := rest[i:]; {
	case tail == "":
	case len(tail) == 1 && tail[0] >= 'a' && tail[0] <= 'z':
		letter = tail[0]
	default:
		return 0, 0, 0, false
	}
	return major, minor, letter, true
}
