package install

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tmaproject/tma/lib/config"
)

// KeysMarker ends the one line install-keys adds to the user's tmux config.
const KeysMarker = "# tma keys"

// keysHeader opens the managed keybindings file.
const keysHeader = "# tma keybindings, managed by `tma install-keys`. Do not hand-edit; re-run to update,\n" +
	"# or `tma install-keys --uninstall` to remove.\n"

// Binding is one of tma's prefix bindings: the [keys] / @tma-key-<Name>
// that chooses its key, the key install-keys takes by default (a key
// stock tmux leaves unbound), and the command, with {tma} for the tma the
// binding runs.
type Binding struct {
	Name, Default, Command string
}

// Bindings are the prefix bindings, in the managed file's order; with the
// default keys and a bare tma they are exactly the manual's lines.
var Bindings = []Binding{
	{"picker", "a", `display-popup -E -w 80% -h 60% '{tma}'`},
	{"watch", "G", `run-shell '{tma} watch --temporary-session --table --client "#{client_name}"'`},
	{"attention", "j", `run-shell '{tma} jump --attention --client "#{client_name}"'`},
	{"blocked", "g", `run-shell '{tma} jump --blocked --client "#{client_name}"'`},
	{"back", "b", `run-shell '{tma} jump --back --client "#{client_name}"'`},
	{"home", "h", `run-shell '{tma} jump --home --client "#{client_name}"'`},
	{"menu", "A", `run-shell '{tma} act --menu --pane "#{pane_id}"'`},
}

// mouseBindings are the opt-in status-line clicks (--mouse), {tma} the tma
// they run. A left click on the blocked count jumps to the longest-blocked
// agent, on any other tma:* range opens the picker popup, anywhere else
// does what tmux does (switch-client -t=); a right click on a tma:* range
// opens the agent menu.
var mouseBindings = func() []string {
	left := ` if-shell -F '#{==:#{mouse_status_range},tma:blocked}' { run-shell '{tma} jump --blocked --client "#{client_name}"' } { if-shell -F '#{m:tma:*,#{mouse_status_range}}' { display-popup -E -w 80% -h 60% '{tma}' } { switch-client -t= } }`
	right := ` if-shell -F '#{m:tma:*,#{mouse_status_range}}' { run-shell '{tma} jump --menu --client "#{client_name}"' }`
	return []string{
		"bind-key -n MouseDown1Status" + left,
		"bind-key -n MouseDown1StatusRight" + left,
		"bind-key -n MouseDown3Status" + right,
		"bind-key -n MouseDown3StatusRight" + right,
	}
}()

// MouseMark and DaemonMark tell, in a managed file, that install-keys
// wrote the mouse group and the daemon launcher (init keeps both choices).
const (
	MouseMark  = "bind-key -n MouseDown1Status "
	DaemonMark = "daemon --ensure"
)

// daemonLine starts the event-hub daemon for whichever server loads the
// file (--no-daemon leaves it out); {tma} is the tma it runs.
const daemonLine = `run-shell -b '{tma} --socket-path "#{socket_path}" daemon --ensure >/dev/null 2>&1'`

// KeysSpec is what the managed file binds.
type KeysSpec struct {
	// Tma is the tma the bindings run: an absolute path (see TmaProgram),
	// so a tmux server whose PATH predates the install still finds it;
	// "" is the bare name.
	Tma string
	// Keys maps a Binding's Name to its key; a missing name takes the
	// default, "" leaves the binding out.
	Keys          map[string]string
	Mouse, Daemon bool
}

func (s KeysSpec) prog() string {
	if s.Tma == "" {
		return "tma"
	}
	return s.Tma
}

// Key is the key a binding is on under this spec ("" for none).
func (s KeysSpec) Key(b Binding) string {
	if k, ok := s.Keys[b.Name]; ok {
		return k
	}
	return b.Default
}

// KeysFile renders the managed file.
func KeysFile(s KeysSpec) []byte {
	var b strings.Builder
	b.WriteString(keysHeader)
	for _, l := range s.Lines() {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// Lines are the managed file's commands, header left out: the prefix
// bindings, the mouse group, the launcher.
func (s KeysSpec) Lines() []string {
	var out []string
	for _, bd := range Bindings {
		if k := s.Key(bd); k != "" {
			out = append(out, "bind-key "+TmuxKey(k)+" "+strings.ReplaceAll(bd.Command, "{tma}", s.prog()))
		}
	}
	if s.Mouse {
		for _, l := range mouseBindings {
			out = append(out, strings.ReplaceAll(l, "{tma}", s.prog()))
		}
	}
	if s.Daemon {
		out = append(out, strings.ReplaceAll(daemonLine, "{tma}", s.prog()))
	}
	return out
}

// safeProgram is a path a binding can carry as it is: inside the single
// quotes of a tmux command and then as one shell word, with nothing tmux's
// formats (#) or the shell would read.
var safeProgram = regexp.MustCompile(`^/[A-Za-z0-9/._+@%:=~-]*$`)

// TmaProgram is the tma the managed file names: tma's absolute path, so
// the keys work on a server whose PATH lacks the install dir. beside is the
// dispatcher next to the running tool, onPath what $PATH finds; when both
// are the same file the $PATH spelling wins (a package manager's stable
// link, /opt/homebrew/bin/tma, outlives the versioned directory it points
// into). A path the bindings cannot carry (a quote, a space, a #) or no
// tma at all gives "" (the bare name) and why.
func TmaProgram(beside, onPath string, same func(a, b string) bool) (prog, why string) {
	p := beside
	switch {
	case beside == "" && onPath == "":
		return "", "no tma found beside this tool or on $PATH"
	case beside == "":
		p = onPath
	case onPath != "" && same(beside, onPath):
		p = onPath
	}
	if !safeProgram.MatchString(p) {
		return "", fmt.Sprintf("%s holds a character a tmux binding cannot carry as it is (a space, a quote or a #)", p)
	}
	return p, ""
}

// ResolveKeys is the key of every binding: chosen (by binding name; ""
// for none) over the defaults. A name no binding has, a key tmux does not
// take, or two bindings on one key is an error naming the binding; from
// names where the choice was made ("[keys]", "@tma-key-").
func ResolveKeys(chosen map[string]string, from string) (map[string]string, error) {
	out := map[string]string{}
	for n := range chosen {
		if !slices.ContainsFunc(Bindings, func(b Binding) bool { return b.Name == n }) {
			return nil, fmt.Errorf("%s%s: no such binding (the bindings: %s)", from, n, strings.Join(config.KeyNames, ", "))
		}
	}
	owner := map[string]string{}
	for _, b := range Bindings {
		k, ok := chosen[b.Name]
		if !ok {
			k = b.Default
		}
		if msg := config.CheckKey(k); msg != "" {
			return nil, fmt.Errorf("%s%s: %s", from, b.Name, msg)
		}
		out[b.Name] = k
		if k == "" {
			continue
		}
		if o, dup := owner[k]; dup {
			return nil, fmt.Errorf("%s%s: %q is %s's key too (choose another, or \"none\" for one of them)", from, b.Name, k, o)
		}
		owner[k] = b.Name
	}
	return out, nil
}

// TmuxKey writes a key for a tmux config line: a punctuation key is
// quoted so the parser does not read it as syntax (; { } # ' " ~ $ ...).
func TmuxKey(k string) string {
	last := k[strings.LastIndex(k, "-")+1:]
	if last == "" || len(last) > 1 || isAlnum(last[0]) {
		return k
	}
	if strings.Contains(k, "'") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`).Replace(k) + `"`
	}
	return "'" + k + "'"
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ManagedProgram is the tma a managed file's bindings run ("" when it has
// none), for telling a file written by another install from a hand edit.
func ManagedProgram(file []byte) string {
	for _, l := range strings.Split(string(file), "\n") {
		if m := programRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

var programRE = regexp.MustCompile(`run-shell (?:-b )?'(\S*tma) `)

// KeysDir is the dir of the managed file: --config-dir, else TMA_CONFIG_DIR,
// else $XDG_CONFIG_HOME/tma, else ~/.config/tma. pinned reports a dir named
// by flag or TMA_CONFIG_DIR, which the source line spells literally.
func (e Env) KeysDir(flag string) (dir string, pinned bool) {
	if flag != "" {
		return e.expand(flag), true
	}
	if d := e.Getenv("TMA_CONFIG_DIR"); d != "" {
		return e.expand(d), true
	}
	return e.ConfigDir(), false
}

// SourceLine is the line added to the user's tmux config. By default tmux
// expands the variables when it loads the config, so one config works on
// every machine; a pinned dir is written literally, double-quoted.
//
// The default line names one file, chosen as ConfigDir chooses: the
// absolute $XDG_CONFIG_HOME's, else ~/.config's. It used to name both, so
// with XDG_CONFIG_HOME=~/.config (or a stale copy under ~/.config) tmux
// loaded the file twice and ran every binding and the launcher twice.
// source-file -F expands the format after the parser has substituted the
// variables (an unset one is empty, which is not absolute).
func SourceLine(dir string, pinned bool) string {
	if !pinned {
		return `source-file -qF "#{?#{m:/*,$XDG_CONFIG_HOME},$XDG_CONFIG_HOME,$HOME/.config}/tma/tmux.conf" ` + KeysMarker
	}
	p := filepath.Join(dir, "tmux.conf")
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`).Replace(p)
	return `source-file -q "` + esc + `" ` + KeysMarker
}

// TmuxConf picks the tmux config that gets the source line: the first of
// tmux's own files that exists (~/.tmux.conf, $XDG_CONFIG_HOME/tmux/tmux.conf,
// ~/.config/tmux/tmux.conf); with none, the one to create:
// $XDG_CONFIG_HOME/tmux/tmux.conf when XDG_CONFIG_HOME is set, else
// ~/.config/tmux/tmux.conf when ~/.config exists, else ~/.tmux.conf.
// exists reports whether a path is a file.
func (e Env) TmuxConf(flag string, exists func(string) bool) string {
	if flag != "" {
		return e.expand(flag)
	}
	home := e.Home()
	xdg := e.Getenv("XDG_CONFIG_HOME")
	if xdg != "" && !filepath.IsAbs(xdg) {
		xdg = ""
	}
	cands := []string{filepath.Join(home, ".tmux.conf")}
	if xdg != "" {
		cands = append(cands, filepath.Join(xdg, "tmux", "tmux.conf"))
	}
	cands = append(cands, filepath.Join(home, ".config", "tmux", "tmux.conf"))
	for _, c := range cands {
		if exists(c) {
			return c
		}
	}
	switch {
	case xdg != "":
		return filepath.Join(xdg, "tmux", "tmux.conf")
	case exists(filepath.Join(home, ".config")):
		return filepath.Join(home, ".config", "tmux", "tmux.conf")
	}
	return filepath.Join(home, ".tmux.conf")
}

// marked reports a line install-keys added.
func marked(l string) bool {
	return strings.HasSuffix(strings.TrimRight(l, " \t\r"), KeysMarker)
}

// MarkedLines counts the marked lines of a tmux config and reports whether
// exactly one is present and equal to want.
func MarkedLines(conf []byte, want string) (n int, current bool) {
	for _, l := range strings.Split(string(conf), "\n") {
		if marked(l) {
			n++
			current = strings.TrimRight(l, " \t\r") == want
		}
	}
	return n, n == 1 && current
}

// WithSourceLine returns conf carrying exactly one marked line, want: an
// existing marked line is replaced in place (others dropped); with none,
// want is appended. Every other byte is kept: a config without a final
// newline gets the line after a newline and without one of its own, so
// removing it gives back the very same bytes.
func WithSourceLine(conf []byte, want string) []byte {
	if n, cur := MarkedLines(conf, want); n == 1 && cur {
		return conf
	}
	var b strings.Builder
	done := false
	for _, l := range strings.SplitAfter(string(conf), "\n") {
		if l == "" {
			continue
		}
		body, nl := strings.CutSuffix(l, "\n")
		if marked(body) {
			if !done {
				b.WriteString(want)
				if nl {
					b.WriteString("\n")
				}
				done = true
			}
			continue
		}
		b.WriteString(l)
	}
	if !done {
		out := b.String()
		if out != "" && !strings.HasSuffix(out, "\n") {
			b.WriteString("\n" + want)
		} else {
			b.WriteString(want + "\n")
		}
	}
	return []byte(b.String())
}

// WithoutSourceLine removes every marked line and nothing else (a marked
// last line without a newline takes the newline before it along).
func WithoutSourceLine(conf []byte) []byte {
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(conf), "\n") {
		body, nl := strings.CutSuffix(l, "\n")
		if l == "" || !marked(body) {
			b.WriteString(l)
			continue
		}
		if !nl {
			out := strings.TrimSuffix(b.String(), "\n")
			b.Reset()
			b.WriteString(out)
		}
	}
	return []byte(b.String())
}

// Bound is one key binding as tmux lists it, or as a tmux config binds it.
type Bound struct {
	Table, Key, Command string
}

// ParseListKeys reads `tmux list-keys` output. A key list-keys escapes
// (\{, \;, '"') is given back plain.
func ParseListKeys(out string) []Bound {
	var bs []Bound
	for _, l := range strings.Split(out, "\n") {
		if m := listKeysRE.FindStringSubmatch(l); m != nil {
			bs = append(bs, Bound{Table: m[1], Key: plainKey(m[2]), Command: strings.TrimSpace(m[3])})
		}
	}
	return bs
}

var listKeysRE = regexp.MustCompile(`^bind-key\s+(?:-\S+\s+)*?-T\s+(\S+)\s+(\S+)\s*(.*)$`)

// plainKey undoes the quoting of a key as tmux prints or a config writes it.
func plainKey(k string) string {
	switch {
	case len(k) >= 3 && (k[0] == '\'' || k[0] == '"') && k[len(k)-1] == k[0]:
		return k[1 : len(k)-1]
	case len(k) == 2 && k[0] == '\\':
		return k[1:]
	}
	return k
}

// ParseConfBinds reads the bind-key lines of a tmux config, for when no
// server answers: `bind[-key] [-nr] [-N note] [-T table] key command`.
// Quoting is read only as far as a key needs it ('{', "'").
func ParseConfBinds(conf []byte) []Bound {
	var bs []Bound
	for _, l := range strings.Split(string(conf), "\n") {
		f := confWords(l)
		if len(f) < 3 || (f[0] != "bind" && f[0] != "bind-key") {
			continue
		}
		table, i := "prefix", 1
	flags:
		for i < len(f) && strings.HasPrefix(f[i], "-") && len(f[i]) > 1 {
			switch f[i] {
			case "-n":
				table = "root"
			case "-T", "-N":
				if f[i] == "-T" && i+1 < len(f) {
					table = f[i+1]
				}
				i++
			case "-r":
			default:
				break flags
			}
			i++
		}
		if i+1 >= len(f) {
			continue
		}
		bs = append(bs, Bound{Table: table, Key: plainKey(f[i]), Command: strings.Join(f[i+1:], " ")})
	}
	return bs
}

// confWords splits a config line into words, a quoted word whole with its
// quotes kept (plainKey takes them off a key).
func confWords(l string) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			cur.WriteByte(c)
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == ' ' || c == '\t':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// tmaCallRE finds a tma program in a binding's command: a path ending in
// /tma or the bare name, as a word of its own.
var tmaCallRE = regexp.MustCompile(`(?:^|[\s"'{])((?:/[^\s"'\\]*/)?tma)(?:\s|\\?["']|$)`)

// TmaCall is the tma a binding's command runs ("" for none).
func TmaCall(command string) string {
	if m := tmaCallRE.FindStringSubmatch(command); m != nil {
		return m[1]
	}
	return ""
}

// Shadowed names each binding the managed file would replace: a key it
// binds that is bound now to something that is not tma, as tmux's default
// when it is the command tmux binds there, else as the user's. Later
// bindings of a key win, as in tmux.
func Shadowed(s KeysSpec, now []Bound) []string {
	cur := map[[2]string]string{}
	for _, b := range now {
		cur[[2]string{b.Table, b.Key}] = b.Command
	}
	var out []string
	say := func(table, key string) {
		cmd, ok := cur[[2]string{table, key}]
		if !ok || TmaCall(cmd) != "" {
			return
		}
		if r := []rune(cmd); len(r) > 72 {
			cmd = string(r[:71]) + "…"
		}
		whose := "your"
		if Stock(table, key, cmd) {
			whose = "tmux's default"
		}
		out = append(out, fmt.Sprintf("replaces %s %s %s: %s", whose, table, key, cmd))
	}
	for _, b := range Bindings {
		if k := s.Key(b); k != "" {
			say("prefix", k)
		}
	}
	if s.Mouse {
		for _, k := range []string{"MouseDown1Status", "MouseDown1StatusRight", "MouseDown3Status", "MouseDown3StatusRight"} {
			say("root", k)
		}
	}
	return out
}

// ParseShowOptions reads `show-options` output into option -> value for
// the options whose names start with prefix, undoing tmux's quoting ("a
// b", \{).
func ParseShowOptions(out, prefix string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		name, v, ok := strings.Cut(l, " ")
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) {
				i++
			}
			b.WriteByte(v[i])
		}
		m[name] = b.String()
	}
	return m
}
