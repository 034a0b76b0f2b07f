package servecmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/serve"
	"github.com/tmaproject/tma/lib/sshguard"
	"github.com/tmaproject/tma/lib/tmux"
)

// The guard's messages to the client.
const (
	msgNoAuthInfo = "this host checks the connection's key (--require-auth-info), and sshd does not say which key it was: " +
		"set ExposeAuthInfo yes in the host's sshd_config"
	msgNotTheKey = "the key this connection authenticated with is not the device this authorized_keys line names; " +
		"fix the line's --device on the host"
)

// guard is `--require-auth-info` and `--allow-attach`: the checks an
// authorized_keys line opts into, run before serve starts. It reports
// done with the exit code when the connection ends here: refused, or
// (attach) the exec failed; a successful attach never returns.
//
// The key check compares the fingerprint of the key sshd authenticated
// (its $SSH_USER_AUTH file, ExposeAuthInfo yes) with --device, the one
// thing the manual's line leaves unproven. The attach passthrough lets
// exactly `tma [-S PATH|-L NAME] attach --pane %N` in $SSH_ORIGINAL_COMMAND
// through to this host's `tma attach`, for a device holding act:always;
// any other command still gets serve, as a forced command always did.
func guard(e *common.Env, c *cli, dir string, logf func(string, ...any)) (int, bool) {
	s := &c.Serve
	if !s.RequireAuthInfo && !s.AllowAttach {
		return 0, false
	}
	orig := e.Getenv("SSH_ORIGINAL_COMMAND")
	attaching := s.AllowAttach && sshguard.IsAttach(orig)
	// A terminal asked for the attach: it reads stderr, not frames.
	refuse := func(exit int, code, msg, why string, a ...any) (int, bool) {
		logf(why, a...)
		if attaching {
			logf("attach refused: %s", msg)
			return exit, true
		}
		serve.Refuse(e.Stdout, code, msg)
		return exit, true
	}
	if s.AllowAttach && !s.RequireAuthInfo {
		// A terminal on the host for a key nothing checked is what the
		// hardening exists to prevent.
		return refuse(serve.ExitFail, serve.CodeInternal, "this host's authorized_keys line is misconfigured (see its log)",
			"--allow-attach needs --require-auth-info on the same line: a terminal is only handed to a key sshd proved is the device's")
	}
	path := e.Getenv("SSH_USER_AUTH")
	if path == "" {
		return refuse(serve.ExitFail, serve.CodeInternal, msgNoAuthInfo,
			"device %s: --require-auth-info and $SSH_USER_AUTH is not set (sshd_config needs ExposeAuthInfo yes)", s.Device)
	}
	keys, err := readAuthInfo(path)
	if err != nil {
		return refuse(serve.ExitFail, serve.CodeInternal, msgNoAuthInfo,
			"device %s: $SSH_USER_AUTH %s: %v", s.Device, path, err)
	}
	if _, ok := sshguard.Match(keys, s.Device); !ok {
		fps := make([]string, len(keys))
		for i, k := range keys {
			fps[i] = k.SHA256()
		}
		return refuse(serve.ExitRefused, serve.CodeScopeDenied, msgNotTheKey,
			"device %s refused: the connection authenticated with %s, not the key --device names", s.Device, strings.Join(fps, ", "))
	}
	if !attaching {
		return 0, false
	}
	a, err := sshguard.ParseAttach(orig)
	if err != nil {
		return refuse(serve.ExitRefused, "", "this key lets through `tma [-S PATH | -L NAME] attach --pane %N` and nothing else",
			"device %s: attach refused: %v", s.Device, err)
	}
	st, err := device.Load(device.Path(dir))
	if err != nil {
		return refuse(serve.ExitFail, "", "the host's device store cannot be read", "%v", err)
	}
	d := st.ByID(s.Device)
	if d == nil {
		return refuse(serve.ExitRefused, "", serve.MsgNotPaired, "device %s: attach refused: not paired", s.Device)
	}
	if !d.Has(device.ScopeAlways) {
		return refuse(serve.ExitRefused, "", fmt.Sprintf("device %s does not hold act:always, which a terminal on this host needs; "+
			"grant it on the host (`tma device grant %s act:always`)", d.Name, d.Name),
			"device %s (%s): attach refused: no act:always", d.Name, s.Device)
	}
	own := common.SocketDescription(e, tmux.ResolveTarget(c.SocketName, c.SocketPath, e.Getenv))
	if want := requested(e, a); want != "" && !sameSocket(own, want) {
		return refuse(serve.ExitRefused, "", fmt.Sprintf("this key attaches on the tmux server its serve watches (%s), not %s", own, want),
			"device %s (%s): attach refused: server %s is not %s", d.Name, s.Device, want, own)
	}
	logf("device %s (%s) attaching to %s", d.Name, s.Device, a.Pane)
	err = sshguard.ExecAttach((&host{g: &c.Globals}).globalArgs(), a.Pane)
	logf("attach: %v", err)
	return serve.ExitFail, true
}

func readAuthInfo(path string) ([]sshguard.Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sshguard.ReadAuthInfo(f)
}

// requested is the socket path the attach names, "" when it names none.
func requested(e *common.Env, a sshguard.Attach) string {
	switch {
	case a.SocketPath != "":
		return a.SocketPath
	case a.SocketName != "":
		return common.SocketDescription(e, tmux.Target{SocketName: a.SocketName})
	}
	return ""
}

// sameSocket compares two socket paths as tmux would reach them: the
// row's server is tmux's own #{socket_path}, which may have gone through
// a symlink the forced command's path did not.
func sameSocket(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
