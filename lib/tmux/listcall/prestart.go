package listcall

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tmaproject/tma/lib/tmux/spawn"
)

// Proc is a tmux call already running, started before the program that
// needs it was initialized: tma-scan's list (Prestart) or tma-hook's write
// client (PrestartBatch), with what it was started for.
type Proc struct {
	*spawn.Proc
	Bin        string    // the binary as named (TMA_TMUX_BIN or "tmux"), before the PATH lookup
	SocketArgs []string  // the server's flags the call was given
	Nonce      string    // the list's (empty for a batch)
	socket     [2]string // the server's name and path, as Socket resolved them
}

// Pending is the call Prestart started for this process, until Take.
var Pending *Proc

// PendingBatch is the `source-file -` process PrestartBatch started for
// this process, until TakeBatch.
var PendingBatch *Proc

// Take hands over the pending call when it is the one a client with bin and
// socketArgs would make; any other pending call is ended. It returns nil
// when there is none to take.
func Take(bin string, socketArgs []string) *Proc { return take(&Pending, bin, socketArgs) }

// TakeBatch is Take for the pending batch.
func TakeBatch(bin string, socketArgs []string) *Proc { return take(&PendingBatch, bin, socketArgs) }

func take(pending **Proc, bin string, socketArgs []string) *Proc {
	p := *pending
	*pending = nil
	if p == nil {
		return nil
	}
	if p.Err() != nil {
		return nil
	}
	if p.Bin != bin || !slices.Equal(p.SocketArgs, socketArgs) {
		p.End()
		return nil
	}
	return p
}

// Drop ends the pending call, if any: the run will not list after all.
func Drop() { drop(&Pending) }

// DropBatch ends the pending batch, if any.
func DropBatch() { drop(&PendingBatch) }

func drop(pending **Proc) {
	if p := *pending; p != nil {
		*pending = nil
		p.End()
	}
}

// Prestart starts the list call a one-shot scan with these words will make,
// where it can tell for sure which call that is: the words name the server
// plainly (Words), and no config file can name another binary (a config
// that might is left to the scan, which reads it). It returns nil when it
// started nothing. The fork runs on a goroutine of its own (spawn.Go).
func Prestart(args []string, getenv func(string) string) *Proc {
	p, exe := sure(args, false, getenv)
	if p == nil {
		return nil
	}
	p.Nonce = Nonce()
	p.launch(exe, Args(p.Nonce), false)
	return p
}

// PrestartBatch starts the `source-file -` process a hook's write will
// use, where it can tell for sure which one that is (as Prestart, with a
// hook's positional words), only inside a pane ($TMUX_PANE) and only where
// no daemon socket exists for the server (daemonSocket names it from the
// socket's name and path): a hook hands its event to a running daemon and
// spawns nothing. The lines go to its stdin later (Proc.Finish).
func PrestartBatch(args []string, getenv func(string) string, daemonSocket func(name, path string) string) *Proc {
	if getenv("TMUX_PANE") == "" {
		return nil
	}
	p, exe := sure(args, true, getenv)
	if p == nil {
		return nil
	}
	if s := daemonSocket(p.socket[0], p.socket[1]); s != "" {
		if _, err := os.Stat(s); err == nil {
			return nil
		}
	}
	p.launch(exe, []string{"source-file", "-"}, true)
	return p
}

// sure is the call's binary and server when the words and the config
// leave no doubt about them, else nil.
func sure(args []string, positional bool, getenv func(string) string) (*Proc, string) {
	name, path, cfgPath, ok := Words(args, positional)
	if !ok || configMayNameBin(cfgPath, getenv) {
		return nil, ""
	}
	bin := getenv("TMA_TMUX_BIN")
	if bin == "" {
		bin = "tmux"
	}
	exe := spawn.LookPath(bin, getenv("PATH"))
	if exe == "" {
		return nil, "" // the tool's own call says what is missing
	}
	n, s := Socket(name, path, getenv)
	return &Proc{Bin: bin, SocketArgs: SocketArgs(n, s), socket: [2]string{n, s}}, exe
}

// launch forks on a goroutine of its own (spawn.Go): an init function
// need not wait for the exec.
func (p *Proc) launch(exe string, args []string, stdin bool) {
	p.Proc = spawn.Go(exe, append([]string{p.Bin}, Argv(p.SocketArgs, args)...), stdin)
}

// Nonce is a list call's nonce: only beyond a guess by whatever prints into
// a pane (math/rand/v2 is seeded from the OS per process).
func Nonce() string { return strconv.FormatUint(uint64(rand.Uint32())|1<<32, 16)[1:] }

// configMayNameBin reports whether the config file the scan will read could
// set [tmux] bin: the file lib/config.Resolve picks exists and holds the
// word "bin" anywhere. Only the config's loader may read TOML; a word test
// is enough to know when not to guess.
func configMayNameBin(flagPath string, getenv func(string) string) bool {
	var path string
	switch {
	case flagPath != "":
		path = flagPath
	case getenv("TMA_CONFIG") != "":
		path = getenv("TMA_CONFIG")
	default:
		for _, p := range candidates(getenv) {
			if _, err := os.Stat(p); err == nil || !errors.Is(err, os.ErrNotExist) {
				path = p
				break
			}
		}
	}
	if path == "" {
		return false
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	return err != nil || bytes.Contains(b, []byte("bin"))
}

// candidates are the implicit config files, as lib/config.Candidates names them.
func candidates(getenv func(string) string) []string {
	var out []string
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		out = append(out, filepath.Join(x, "tma", "config.toml"))
	}
	if h := getenv("HOME"); h != "" {
		out = append(out, filepath.Join(h, ".config", "tma", "config.toml"))
	}
	return out
}
