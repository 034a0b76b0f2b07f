package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// farHost is what the remote benchmarks stand up: the tree built with the
// dispatcher beside it, a tmux server with 10 fake claude agents standing
// for the remote host, a private sshd on 127.0.0.1 whose key runs that
// server's tma serve as a forced command, and the key paired as device
// "laptop" on the far side (read scope).
type farHost struct {
	bin       string // the built tools and the dispatcher
	far       *testkit.Server
	sshd      *testkit.SSHD
	key       testkit.Key
	home, run string // the far side's HOME and XDG_RUNTIME_DIR
}

func newFarHost(b *testing.B) *farHost {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	h := &farHost{bin: b.TempDir(), home: b.TempDir(), run: b.TempDir()}
	build := exec.Command("go", "build", "-o", h.bin+"/", "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	sh, err := os.ReadFile(filepath.Join(root, "shell", "tma"))
	if err == nil {
		err = os.WriteFile(filepath.Join(h.bin, "tma"), sh, 0o755)
	}
	if err != nil {
		b.Fatal(err)
	}
	h.far = agentServer(b)
	h.sshd = testkit.NewSSHD(b)
	h.key = h.sshd.NewKey("laptop")
	vars := "HOME=" + h.home + " XDG_RUNTIME_DIR=" + h.run + " PATH=" + h.bin + ":" + os.Getenv("PATH")
	if t := os.Getenv("TMA_TMUX_BIN"); t != "" {
		vars += " TMA_TMUX_BIN=" + t
	}
	h.sshd.Authorize(fmt.Sprintf(`command="env %s sh %s/tma -S %s serve --stdio --device %s",restrict %s`,
		vars, h.bin, h.far.Socket, h.key.Fingerprint, h.key.Public))
	if out, err := h.tma(h.home, h.run, nil, "device", "pair", "laptop", "--id", h.key.Fingerprint, "--only").CombinedOutput(); err != nil {
		b.Fatalf("pair: %v %s", err, out)
	}
	return h
}

// agentServer is a tmux server with 10 fake claude agents.
func agentServer(b *testing.B) *testkit.Server {
	agentBin, screen := fakeClaude(b)
	s := testkit.NewServer(b)
	for range 10 {
		s.MustRun("new-window", "-d", "-t", "s:", agentBin, screen)
	}
	return s
}

// tma runs the built dispatcher with HOME and XDG_RUNTIME_DIR as given,
// nothing of the caller's config or tmux, and extra environment last.
func (h *farHost) tma(home, run string, extra []string, args ...string) *exec.Cmd {
	c := exec.Command("sh", append([]string{filepath.Join(h.bin, "tma")}, args...)...)
	c.Env = append(append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+run, "XDG_CONFIG_HOME=", "TMA_CONFIG=",
		"TMUX=", "TMA_SOCKET_PATH=", "TMA_REMOTE_DIAL="), extra...)
	return c
}
