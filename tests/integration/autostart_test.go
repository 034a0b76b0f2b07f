package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEverySurfaceStartsAndUpgradesTheDaemon: tma ls, jump, the picker and
// watch apply [daemon] autostart and restart_on_upgrade as status, wait and
// subscribe do, as the manual lists them all (issue 27 item 23: ls, jump,
// the picker and watch did neither): with autostart on and no daemon each
// starts one; with a daemon of an older build each replaces it.
func TestEverySurfaceStartsAndUpgradesTheDaemon(t *testing.T) {
	e := newEnv(t, laneOff+"[daemon]\nautostart = true\n")
	withBins(t, e)
	e.s.StartAgent("claude", claudeIdle)
	t.Cleanup(e.stopDaemon)
	old := buildOld(t)
	surfaces := [][]string{{"ls"}, {"jump", "--next"}, {"pick", "--print"}, {"watch", "--print"}}
	for _, sf := range surfaces {
		e.stopDaemon()
		e.tma(sf...)
		e.s.WaitFor(func() bool { return e.running() != nil }, "the daemon `tma "+strings.Join(sf, " ")+"` started")
	}
	for _, sf := range surfaces {
		e.stopDaemon()
		cmd := exec.Command(filepath.Join(old, "tma-daemon"), "--socket-path", e.s.Socket, "daemon", "--ensure")
		cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the 0.0.1 daemon: %v\n%s", err, out)
		}
		if r := e.running(); r == nil || r.Version != "0.0.1" {
			t.Fatalf("the old daemon: %+v", r)
		}
		os.Remove(e.paths().Upgraded) // the last automatic restart's time: at most one a minute
		e.tma(sf...)
		e.s.WaitFor(func() bool { r := e.running(); return r != nil && r.Version == "0.1.0" }, "`tma "+strings.Join(sf, " ")+"` replacing the 0.0.1 daemon")
	}
	// Off (the defaults), none starts one.
	e.stopDaemon()
	e.writeConfig(laneOff)
	for _, sf := range surfaces {
		e.tma(sf...)
	}
	time.Sleep(1500 * time.Millisecond)
	if r := e.running(); r != nil {
		t.Errorf("a daemon started without autostart: %+v", r)
	}
}
