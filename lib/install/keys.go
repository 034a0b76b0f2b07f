package install

import (
	"path/filepath"
	"strings"
)

// KeysMarker ends the one line install-keys adds to the user's tmux config.
const KeysMarker = "# tma keys"

// keysHeader opens the managed keybindings file.
const keysHeader = "# tma keybindings, managed by `tma install-keys`. Do not hand-edit; re-run to update,\n" +
	"# or `tma install-keys --uninstall` to remove.\n"

// KeyBindings are the prefix bindings, exactly as the manual writes them.
var KeyBindings = []string{
	`bind-key a display-popup -E -w 80% -h 60% 'tma'`,
	`bind-key G run-shell 'tma watch --temporary-session --table --client "#{client_name}"'`,
	`bind-key j run-shell 'tma jump --attention --client "#{client_name}"'`,
	`bind-key g run-shell 'tma jump --blocked --client "#{client_name}"'`,
	`bind-key b run-shell 'tma jump --back --client "#{client_name}"'`,
	`bind-key h run-shell 'tma jump --home --client "#{client_name}"'`,
	`bind-key A run-shell 'tma act --menu --pane "#{pane_id}"'`,
}

// MouseBindings are the opt-in status-line clicks (--mouse). A left click
// on the blocked count jumps to the longest-blocked agent, on any other
// tma:* range opens the picker popup, anywhere else does what tmux does
// (switch-client -t=); a right click on a tma:* range opens the agent menu.
var MouseBindings = func() []string {
	left := ` if-shell -F '#{==:#{mouse_status_range},tma:blocked}' { run-shell 'tma jump --blocked --client "#{client_name}"' } { if-shell -F '#{m:tma:*,#{mouse_status_range}}' { display-popup -E -w 80% -h 60% 'tma' } { switch-client -t= } }`
	right := ` if-shell -F '#{m:tma:*,#{mouse_status_range}}' { run-shell 'tma jump --menu --client "#{client_name}"' }`
	return []string{
		"bind-key -n MouseDown1Status" + left,
		"bind-key -n MouseDown1StatusRight" + left,
		"bind-key -n MouseDown3Status" + right,
		"bind-key -n MouseDown3StatusRight" + right,
	}
}()

// DaemonLine starts the event-hub daemon for whichever server loads the
// file (--no-daemon leaves it out).
const DaemonLine = `run-shell -b 'tma --socket-path "#{socket_path}" daemon --ensure >/dev/null 2>&1'`

// KeysFile renders the managed file.
func KeysFile(mouse, daemon bool) []byte {
	var b strings.Builder
	b.WriteString(keysHeader)
	for _, l := range KeyBindings {
		b.WriteString(l + "\n")
	}
	if mouse {
		for _, l := range MouseBindings {
			b.WriteString(l + "\n")
		}
	}
	if daemon {
		b.WriteString(DaemonLine + "\n")
	}
	return []byte(b.String())
}

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
