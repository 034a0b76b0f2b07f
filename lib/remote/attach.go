package remote

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tmaproject/tma/lib/config"
)

// AttachArgv is the argv that puts a terminal in front of pane on r (whose
// rows name server): r's attach with the pane id appended when it is set;
// otherwise derived from an ssh command (see deriveSSH). Any other command
// has no attach that tma can guess, and the error says to set one.
func AttachArgv(r config.Remote, server, pane string) ([]string, error) {
	if len(r.Attach) > 0 {
		return append(append([]string(nil), r.Attach...), pane), nil
	}
	if len(r.Command) > 0 && filepath.Base(r.Command[0]) == "ssh" {
		if argv, ok := deriveSSH(r.Command, server, pane); ok {
			return argv, nil
		}
	}
	return nil, fmt.Errorf("remote %s: no attach argv: its command is not an ssh tma can read (set attach in its [[remote]] table, e.g. [\"ssh\", \"-t\", \"<host>\", \"tma\", \"attach\", \"--pane\"])", r.Name)
}

// sshArgOpts are ssh's options that take an argument (ssh(1)).
const sshArgOpts = "BbcDEeFIiJLlmOopQRSWw"

// deriveSSH turns a serve command into an attach one: the same ssh, its
// options kept but -T, -t, -n and -N (a terminal is the point), then -t;
// the same destination; and for the remote command, the words before
// `serve` in the command's own (the same tma with the same globals:
// "tma", "/opt/bin/tma -S /sock") or plain "tma" when it has none,
// followed by `-S <server>` when those words name no server, then
// `attach --pane <pane>`. ssh joins the remote words with spaces for the
// remote shell: the words kept are passed as the user wrote them, the
// server path is quoted.
func deriveSSH(cmd []string, server, pane string) ([]string, bool) {
	out := []string{cmd[0], "-t"}
	i := 1
	for ; i < len(cmd); i++ {
		a := cmd[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		kept := "-"
		takes := false
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte(sshArgOpts, c) >= 0 {
				kept += a[j:]
				takes = j == len(a)-1
				break
			}
			if !strings.ContainsRune("TtnN", rune(c)) {
				kept += string(c)
			}
		}
		if kept != "-" {
			out = append(out, kept)
		}
		if takes {
			if i+1 >= len(cmd) {
				return nil, false
			}
			i++
			out = append(out, cmd[i])
		}
	}
	if i >= len(cmd) {
		return nil, false // no destination
	}
	out = append(out, cmd[i])
	words := cmd[i+1:]
	prefix := []string{"tma"}
	for j, w := range words {
		if w == "serve" && j > 0 {
			prefix = words[:j]
			break
		}
	}
	out = append(out, prefix...)
	named := false
	for _, w := range prefix {
		named = named || w == "-S" || w == "-L" || strings.HasPrefix(w, "-S") || strings.HasPrefix(w, "-L") || strings.HasPrefix(w, "--socket")
	}
	if !named && server != "" {
		out = append(out, "-S", shellQuote(server))
	}
	return append(out, "attach", "--pane", pane), true
}

// shellQuote quotes w for the remote shell when it needs it.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./%=:@+,") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Exec replaces this process with an attach argv: the picker in a plain
// terminal with no tmux client to move hands the terminal to ssh.
func Exec(argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}
