package sshguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// ExecAttach replaces this process with this host's `tma attach --pane
// pane`, on serve's own server (its globals), never with a word of the
// client's but the checked pane id. tma-pick beside this binary is the
// one the dispatcher would run; PATH's otherwise.
func ExecAttach(globals []string, pane string) error {
	path := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "tma-pick"); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		p, err := exec.LookPath("tma-pick")
		if err != nil {
			return err
		}
		path = p
	}
	argv := append(append([]string{path}, globals...), "attach", "--pane", pane)
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		// Inside tmux, attach would be a jump of some other client.
		if !strings.HasPrefix(kv, "TMUX=") {
			env = append(env, kv)
		}
	}
	return syscall.Exec(path, argv, env)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
