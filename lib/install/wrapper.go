package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WrapperName is the hook wrapper every agent config calls.
const WrapperName = "tma-hook"

// The values of [install] wrapper_ref.
const (
	RefBare     = "bare"
	RefAbsolute = "absolute"
)

// Wrapper is the wrapper this install points configs at.
type Wrapper struct {
	File string // the wrapper file itself
	Ref  string // what a config names: "tma-hook", or an absolute path
	Mode string // RefBare or RefAbsolute
	// Warnings to print (a store path written for lack of a stable one).
	Warnings []string
	// Write is the wrapper install must write first: one was named
	// (--wrapper-path, TMA_WRAPPER_PATH) where none exists yet.
	Write *Change
}

// ErrNotOnPath is the refusal of a bare install whose wrapper $PATH cannot
// find: the agents would run a name that resolves to nothing.
type ErrNotOnPath struct{ Path string }

func (e *ErrNotOnPath) Error() string {
	return "tma-hook is not on $PATH, so the bare reference `tma-hook` would resolve to nothing\n" +
		"and the agents' hooks would fail silently. Put the directory holding tma-hook on $PATH\n" +
		"(make install puts it beside tma in ~/.local/bin), or pass --wrapper-ref absolute\n" +
		"(or set [install] wrapper_ref = \"absolute\") to write its full path instead."
}

// ResolveWrapper finds the wrapper and the reference to write for mode.
// The wrapper is --wrapper-path (flagPath), else TMA_WRAPPER_PATH, else
// tma-hook on $PATH, else tma-hook beside the running binary.
func (e Env) ResolveWrapper(mode, flagPath string) (*Wrapper, error) {
	if mode == "" {
		mode = RefBare
	}
	if mode != RefBare && mode != RefAbsolute {
		return nil, fmt.Errorf("wrapper reference must be %q or %q, got %q", RefBare, RefAbsolute, mode)
	}
	named := flagPath
	if named == "" {
		named = e.Getenv("TMA_WRAPPER_PATH")
	}
	onPath := e.LookPath(WrapperName)
	w := &Wrapper{Mode: mode}
	switch {
	case named != "":
		w.File = e.expand(named)
		_, statErr := os.Stat(w.File)
		switch {
		case isExec(w.File):
		case errors.Is(statErr, fs.ErrNotExist) && e.shipped() != "":
			// Nothing there yet: install writes the wrapper (D-232, D-235).
			w.Write = &Change{Path: w.File, What: "tma-hook wrapper", New: WrapperScript(e.shipped()), Mode: 0o755}
		default:
			return nil, fmt.Errorf("wrapper %s (from --wrapper-path / TMA_WRAPPER_PATH) is not an executable file", w.File)
		}
	case onPath != "":
		w.File = onPath
	case e.Self != "":
		if p := filepath.Join(filepath.Dir(e.Self), WrapperName); isExec(p) {
			w.File = p
		}
	}
	if mode == RefBare {
		if onPath == "" {
			return nil, &ErrNotOnPath{}
		}
		if w.File != "" && !SameFile(onPath, w.File) {
			return nil, fmt.Errorf("tma-hook on $PATH (%s) is not the wrapper at %s: the bare reference would run the first; fix $PATH or pass --wrapper-ref absolute", onPath, w.File)
		}
		w.File, w.Ref = onPath, WrapperName
		return w, nil
	}
	if w.File == "" {
		return nil, fmt.Errorf("no tma-hook wrapper found (not on $PATH, not beside %s); build it (make install) or name it with --wrapper-path", e.Self)
	}
	w.Ref = w.File
	if inStore(w.File) {
		if p := e.stableAlias(w.File); p != "" {
			w.Ref = p
		} else {
			w.Warnings = append(w.Warnings, fmt.Sprintf("writing the store path %s: no tma-hook outside the store on $PATH reaches it, so the hooks break when this build is garbage-collected", w.File))
		}
	}
	if strings.ContainsAny(w.Ref, "'\"\\$`\n") {
		return nil, fmt.Errorf("wrapper path %q carries a quote, backslash, $ or newline: tma will not write it into a shell command", w.Ref)
	}
	return w, nil
}

// shipped is the tma-hook this build ships, beside the running binary; ""
// when there is none.
func (e Env) shipped() string {
	if e.Self == "" {
		return ""
	}
	if p := filepath.Join(filepath.Dir(e.Self), WrapperName); isExec(p) {
		return p
	}
	return ""
}

// WrapperScript is the wrapper install writes where one is named but
// missing: the hook contract (tma-hook <agent> <event> [payload], payload
// on stdin) handed to the tma-hook this build ships, found at fire time by
// its path.
func WrapperScript(shipped string) []byte {
	return []byte("#!/bin/sh\n# tma-hook, written by tma install-hooks: agents call this path; it runs the\n" +
		"# tma-hook tma ships. Re-run tma install-hooks after moving tma.\nexec " + ShellWord(shipped) + " \"$@\"\n")
}

var stores = []string{"/nix/store/", "/gnu/store/"}

func inStore(p string) bool {
	for _, s := range stores {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

// stableAlias walks $PATH for a tma-hook outside any store that resolves to
// the same file as the store path.
func (e Env) stableAlias(file string) string {
	for _, dir := range filepath.SplitList(e.Getenv("PATH")) {
		if dir == "" || inStore(dir+"/") {
			continue
		}
		p := filepath.Join(dir, WrapperName)
		if isExec(p) && SameFile(p, file) {
			return p
		}
	}
	return ""
}

// SameFile reports whether two paths reach the same file.
func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// Reaches reports what file a reference resolves to ("" for nothing): a bare
// name through $PATH, a path (~/ expanded) directly.
func (e Env) Reaches(ref string) string {
	if !strings.Contains(ref, "/") {
		return e.LookPath(ref)
	}
	p := e.expand(ref)
	if isExec(p) {
		return p
	}
	return ""
}

// Verdict describes a wired reference against the wrapper: "" when it
// resolves to the same file.
func (e Env) Verdict(ref string, w *Wrapper) string {
	got := e.Reaches(ref)
	switch {
	case got == "":
		return fmt.Sprintf("%s resolves to nothing", ref)
	case w == nil || w.File == "":
		return ""
	case !SameFile(got, w.File):
		return fmt.Sprintf("%s resolves to %s, not %s", ref, got, w.File)
	}
	return ""
}

// ShellWord quotes s for sh only when it needs it.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+@%:,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HookCommand is the shell command a hook entry runs.
func HookCommand(ref, agent, event string) string {
	return ShellWord(ref) + " " + agent + " " + event
}

// ParseHookCommand reads a hook command tma wrote (or one written in the
// same form): ok when its program is a tma-hook.
func ParseHookCommand(cmd string) (ref, agent, event string, ok bool) {
	return Refs{}.Parse(cmd)
}

// Refs tells tma's hook commands from everybody else's. A program is tma's
// wrapper when its file name is tma-hook, when it is spelled as a reference
// tma wrote (this run's, or the one the install record holds), or when it
// reaches the wrapper file this run resolved: a wrapper named otherwise
// (TMA_WRAPPER_PATH=…/tma-hook-wrap) is still recognised, so install
// converges and uninstall finds what it wrote.
type Refs struct {
	env     Env
	file    string   // the wrapper file ("" when unresolved)
	written []string // references tma wrote
}

// Refs is the recognition for wrapper w (nil when it could not be resolved)
// and the references an install record holds.
func (e Env) Refs(w *Wrapper, recorded ...string) Refs {
	r := Refs{env: e}
	if w != nil {
		r.file = w.File
		r.written = append(r.written, w.Ref)
	}
	for _, s := range recorded {
		if s != "" {
			r.written = append(r.written, s)
		}
	}
	return r
}

// Ours reports whether a command's program word is tma's wrapper.
func (r Refs) Ours(word string) bool {
	if word == "" {
		return false
	}
	if filepath.Base(word) == WrapperName {
		return true
	}
	for _, s := range r.written {
		if word == s {
			return true
		}
	}
	if r.file != "" && r.env.Getenv != nil {
		if got := r.env.Reaches(word); got != "" && SameFile(got, r.file) {
			return true
		}
	}
	return false
}

// Parse reads a hook command: ok when its program is tma's wrapper (Ours).
func (r Refs) Parse(cmd string) (ref, agent, event string, ok bool) {
	words := shellWords(cmd)
	if len(words) < 2 || !r.Ours(words[0]) {
		return "", "", "", false
	}
	ref, agent = words[0], words[1]
	if len(words) > 2 {
		event = words[2]
	}
	return ref, agent, event, true
}

// shellWords splits the simple commands tma writes: words separated by
// blanks, single and double quotes honoured. It stops at a shell operator.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return out
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					cur.WriteByte(s[j])
					continue
				}
				cur.WriteByte(s[j])
			}
			i = j
			in = true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		case strings.IndexByte(";&|<>()\n", c) >= 0:
			if in {
				out = append(out, cur.String())
			}
			return out
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
