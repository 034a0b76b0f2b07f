package doctor

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/tmux"
)

// KeyCall is one binding on the server that runs tma: the key (its table
// named when not prefix), the program it names and what that resolves to
// for the server (run-shell and display-popup run their command with the
// server's global environment, not the shell's that ran install-keys).
type KeyCall struct {
	Key      string
	Program  string // as bound: a path, or a bare name looked up on PATH
	Resolved string // the executable the server would run, "" for none
}

// Keys is what doctor found of tma's bindings on the server.
type Keys struct {
	Read       bool      // list-keys answered
	Calls      []KeyCall // every binding that runs tma
	ServerPATH string    // the server's global PATH ("" when unset)
	// Self is the tma install-keys would bind now (install.TmaProgram),
	// "" when unknown: keys that run another, existing tma are an
	// install left behind (an upgrade into another directory).
	Self string
}

// ReadKeys reads the prefix and root tables and the server's PATH (one
// tmux call) and resolves each tma binding's program as the server would.
func ReadKeys(ctx context.Context, c *tmux.Client) Keys {
	var k Keys
	out, _, err := c.Run(ctx, "", "list-keys", "-T", "prefix", ";", "list-keys", "-T", "root", ";", "show-environment", "-g", "PATH")
	if err != nil {
		// A server without a PATH in its environment fails the last
		// command only; the tables are still on stdout.
		if !strings.Contains(out, "bind-key") {
			return k
		}
	}
	k.Read = true
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "PATH="); ok {
			k.ServerPATH = v
		}
	}
	for _, b := range install.ParseListKeys(out) {
		if prog := install.TmaCall(b.Command); prog != "" {
			key := b.Key
			if b.Table != "prefix" {
				key = b.Table + " " + key
			}
			k.Calls = append(k.Calls, KeyCall{Key: key, Program: prog})
		}
	}
	for i := range k.Calls {
		k.Calls[i].Resolved = resolve(k.Calls[i].Program, k.ServerPATH)
	}
	return k
}

// resolve is the executable a program names for a server with the given
// PATH, as execvp finds it; "" when there is none.
func resolve(prog, path string) string {
	if strings.Contains(prog, "/") {
		if install.IsExec(prog) {
			return prog
		}
		return ""
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if p := filepath.Join(d, prog); install.IsExec(p) {
			return p
		}
	}
	return ""
}

// keysLine is doctor's keys: line: nothing when no binding runs tma, one
// line naming the keys when every one resolves, else a warning per program
// that does not (a key that fails with 127 and says nothing).
func (k Keys) line(line func(label, format string, a ...any), warn func()) dKeys {
	d := dKeys{Bindings: []dKeyCall{}}
	if !k.Read || len(k.Calls) == 0 {
		return d
	}
	d.OK = true
	byProg := map[string][]string{}
	var progs []string
	for _, c := range k.Calls {
		d.Bindings = append(d.Bindings, dKeyCall{Key: c.Key, Program: c.Program, Resolved: strp(c.Resolved)})
		if _, seen := byProg[c.Program]; !seen {
			progs = append(progs, c.Program)
		}
		byProg[c.Program] = append(byProg[c.Program], c.Key)
	}
	sort.Strings(progs)
	label := "keys:"
	for _, p := range progs {
		keys := strings.Join(byProg[p], " ")
		res := resolve(p, k.ServerPATH)
		switch {
		case res != "" && res == p && k.Self != "" && p != k.Self && !install.SameFile(p, k.Self):
			line(label, "%s run %s ✓, not this tma (%s): re-run `tma install-keys` (or `tma init`) to bind this one, then reload your tmux config", keys, p, k.Self)
		case res != "" && res == p:
			line(label, "%s run %s ✓", keys, p)
		case res != "":
			line(label, "%s run `%s`, %s on the server's PATH ✓", keys, p, res)
		case strings.Contains(p, "/"):
			d.OK = false
			warn()
			line(label, "%s run %s, which is not an executable file: tmux fails them with 127 and says nothing (re-run `tma install-keys`, then reload your tmux config)", keys, p)
		default:
			d.OK = false
			warn()
			line(label, "%s run `%s`, which is not on the tmux server's PATH (%s): tmux fails them with 127 and says nothing (re-run `tma install-keys`: it writes tma's absolute path; then reload your tmux config)", keys, p, orNone(k.ServerPATH))
		}
		label = ""
	}
	return d
}

func orNone(p string) string {
	if p == "" {
		return "unset"
	}
	return p
}

type dKeys struct {
	OK       bool       `json:"ok"`
	Bindings []dKeyCall `json:"bindings"`
}
type dKeyCall struct {
	Key      string  `json:"key"`
	Program  string  `json:"program"`
	Resolved *string `json:"resolved"`
}
