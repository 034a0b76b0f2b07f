package doctor

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

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
}

// tmaCallRE finds a tma program in a binding's command as list-keys
// prints it: a path ending in /tma or the bare name, as a word of its own.
var tmaCallRE = regexp.MustCompile(`(?:^|[\s"'])((?:/[^\s"'\\]*/)?tma)(?:\s|\\?["']|$)`)

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
			continue
		}
		key, cmd, ok := splitListKeys(l)
		if !ok {
			continue
		}
		if m := tmaCallRE.FindStringSubmatch(cmd); m != nil {
			k.Calls = append(k.Calls, KeyCall{Key: key, Program: m[1]})
		}
	}
	for i := range k.Calls {
		k.Calls[i].Resolved = resolve(k.Calls[i].Program, k.ServerPATH)
	}
	return k
}

// splitListKeys cuts one list-keys line into its key ("prefix g" shown as
// "g", another table's as "root MouseDown1Status") and its command.
func splitListKeys(l string) (key, cmd string, ok bool) {
	f := strings.Fields(l)
	if len(f) < 4 || f[0] != "bind-key" {
		return "", "", false
	}
	i := 1
	for i < len(f) && f[i] != "-T" {
		i++
	}
	if i+3 > len(f) {
		return "", "", false
	}
	table, key := f[i+1], strings.TrimPrefix(f[i+2], `\`)
	if table != "prefix" {
		key = table + " " + key
	}
	// The command is what follows the key on the line.
	rest := l[strings.Index(l, f[i+2])+len(f[i+2]):]
	return key, strings.TrimSpace(rest), true
}

// resolve is the executable a program names for a server with the given
// PATH, as execvp finds it; "" when there is none.
func resolve(prog, path string) string {
	if strings.Contains(prog, "/") {
		if executable(prog) {
			return prog
		}
		return ""
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if p := filepath.Join(d, prog); executable(p) {
			return p
		}
	}
	return ""
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
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
