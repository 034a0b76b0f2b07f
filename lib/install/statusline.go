package install

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tmaproject/tma/lib/jsonedit"
)

// The statusline context shim. An agent's statusLine runs one command, so
// the shim composes with the user's: it reads the payload once, hands a copy
// to `tma event --kind context` in the background, and pipes the same bytes
// to the original command (kept verbatim as a single-quoted `sh -c`
// argument, which is also how --no-statusline restores it). It names tma by
// path with a $PATH fallback, not through tma-hook.

// ShimCommand renders the shim around orig ("" when there was none).
func ShimCommand(tmaPath, agent, orig string) string {
	tail := "cat >/dev/null"
	if orig != "" {
		tail = "sh -c " + shq(orig)
	}
	// The payload is read whole, trailing newlines included: a command
	// substitution strips them, so a "." rides behind them and is cut.
	return fmt.Sprintf(`_TMA_BIN=%s; [ -x "$_TMA_BIN" ] || _TMA_BIN=tma; _tma_in=$(cat; echo .); _tma_in=${_tma_in%%.}; (printf '%%s' "$_tma_in" | "$_TMA_BIN" event --agent %s --kind context >/dev/null 2>&1 &); printf '%%s' "$_tma_in" | %s`,
		shq(tmaPath), agent, tail)
}

const sq = `'(?:[^']|'\\'')*'`

// shimRE reads a shim this build writes, and the one earlier builds wrote
// (`_tma_in=$(cat);`, which lost the payload's trailing newlines): install
// rewrites that one, uninstall restores what either wrapped.
var shimRE = regexp.MustCompile(`^_TMA_BIN=(` + sq + `); \[ -x "\$_TMA_BIN" \] \|\| _TMA_BIN=tma; _tma_in=\$\(cat(?:; echo \.\); _tma_in=\$\{_tma_in%\.\}|\)); \(printf '%s' "\$_tma_in" \| "\$_TMA_BIN" event --agent (\S+) --kind context >/dev/null 2>&1 &\); printf '%s' "\$_tma_in" \| (?:sh -c (` + sq + `)|cat >/dev/null)$`)

// ParseShim reads a shim: the tma path, the agent and the wrapped command.
func ParseShim(cmd string) (tmaPath, agent, orig string, ok bool) {
	m := shimRE.FindStringSubmatch(cmd)
	if m == nil {
		return "", "", "", false
	}
	return unq(m[1]), m[2], unq(m[3]), true
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func unq(s string) string {
	if len(s) < 2 {
		return ""
	}
	return strings.ReplaceAll(s[1:len(s)-1], `'\''`, "'")
}

// StatuslineWant is what a run asks of the shim.
type StatuslineWant int

// Keep leaves the shim as the record says; On wires it; Off removes it.
const (
	StatuslineKeep StatuslineWant = iota
	StatuslineOn
	StatuslineOff
)

// shimState reads statusLine in a settings document.
type shimState struct {
	present bool // a statusLine member exists
	command string
	isShim  bool
	tmaPath string
	orig    string
}

func readShim(src []byte, root *jsonedit.Node) shimState {
	sl := root.Get("statusLine")
	if sl == nil {
		return shimState{}
	}
	st := shimState{present: true}
	if c, ok := sl.Get("command").Str(src); ok {
		st.command = c
		st.tmaPath, _, st.orig, st.isShim = ParseShim(c)
	}
	return st
}

// wireShim installs or refreshes the shim in a settings document.
func wireShim(src []byte, path, tmaPath, agent string) ([]byte, error) {
	root, err := parseObject(src, path)
	if err != nil {
		return nil, err
	}
	st := readShim(src, root)
	switch {
	case !st.present:
		obj := struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		}{"command", ShimCommand(tmaPath, agent, "")}
		return jsonedit.InsertMember(src, root, "statusLine", marshal(obj)), nil
	case st.isShim:
		want := ShimCommand(tmaPath, agent, st.orig)
		if st.command == want {
			return src, nil
		}
		return jsonedit.ReplaceValue(src, root.Lookup("statusLine", "command"), marshal(want)), nil
	case st.command != "":
		return jsonedit.ReplaceValue(src, root.Lookup("statusLine", "command"), marshal(ShimCommand(tmaPath, agent, st.command))), nil
	}
	return nil, fmt.Errorf("%s: statusLine has no command string; tma will not wrap it", path)
}

// unwireShim restores what the shim wrapped (or removes a statusLine tma
// created).
func unwireShim(src []byte, path string) ([]byte, error) {
	root, err := parseObject(src, path)
	if err != nil {
		return nil, err
	}
	st := readShim(src, root)
	if !st.isShim {
		return src, nil
	}
	if st.orig == "" {
		return jsonedit.DeleteMember(src, root, root.Index("statusLine")), nil
	}
	return jsonedit.ReplaceValue(src, root.Lookup("statusLine", "command"), marshal(st.orig)), nil
}
