package setup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// make demo with no terminal, as CI and a script run it: it builds, drives
// its throwaway server to every state, binds the keys as install-keys does,
// prints what it shows, and leaves nothing running.
//
// It runs on a machine without the test toolchain (issue 29 item 9): tmux,
// Go and the fzf make builds are all it needs, so shellcheck, node, zsh,
// fish, sshd, dash, curl, less and chromium are off its PATH.
func TestMakeDemo(t *testing.T) {
	mk := testkit.Need(t, "make")
	cmd := exec.Command(mk, "-s", "demo")
	cmd.Dir = root()
	path := pathWithout(t, "shellcheck", "node", "nodejs", "zsh", "fish", "sshd", "ssh", "dash", "curl", "less", "chromium")
	cmd.Env = append(os.Environ(), "TMUX=", "TMA_DEMO_TIMEOUT=60", "PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	s := string(out)
	// The keys run tma by its absolute path (issue 29 item 2).
	tmaBin := filepath.Join(root(), "bin", "tma")
	for _, want := range []string{
		"\tclaude\tblocked\tpermission\t",
		"\tcodex\tworking\t",
		"\tgemini\tidle\t",
		"\topencode\tidle\t",
		"\tpi\tworking\t",
		"\tclaude\tunknown\t",
		"⚑1 ●2 ✓1 ○1 ?1",
		// The keys, as install-keys writes them.
		"-T prefix a       display-popup -E",
		"-T prefix g       run-shell \"" + tmaBin + " jump --blocked",
		"-T prefix b       run-shell \"" + tmaBin + " jump --back",
		"-T prefix A       run-shell \"" + tmaBin + " act --menu",
		`"outcome":"sent"`,
		// The picker's fzf, found beside the binaries.
		"/bin/fzf ✓",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("make demo output lacks %q", want)
		}
	}
	if strings.Contains(s, "no usable fzf") {
		t.Errorf("the demo's picker has no fzf:\n%s", s)
	}
	// Its server is gone.
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "tmux -L tma-demo-"); i >= 0 {
			sock := strings.Fields(l[i+len("tmux -L "):])[0]
			sock = strings.TrimRight(sock, ")")
			if err := exec.Command(testkit.TmuxBin(), "-L", sock, "has-session").Run(); err == nil {
				t.Errorf("demo server %s still running", sock)
			}
			break
		}
	}
}
