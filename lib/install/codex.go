package install

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/tmaproject/tma/lib/tomledit"
)

// notifyState is what config.toml's top-level notify says.
type notifyState struct {
	stmt    tomledit.Statement
	found   bool
	argv    []string
	ours    bool   // argv is tma-hook codex …
	chained bool   // argv is another program passing tma-hook on in --previous-notify
	program string // the other program
	ref     string // the tma-hook reference (direct or chained)
}

func readNotify(src []byte, path string, refs Refs) (notifyState, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(src), &doc); err != nil {
		return notifyState{}, fmt.Errorf("%s: not valid TOML (%v); tma will not edit it", path, err)
	}
	st := notifyState{}
	st.stmt, st.found = tomledit.Find(src, "notify")
	raw, ok := doc["notify"]
	if !ok {
		st.found = false
		return st, nil
	}
	if !st.found {
		return st, fmt.Errorf("%s: notify is set in a form tma cannot edit (a dotted or inline key)", path)
	}
	arr, ok := raw.([]any)
	if !ok {
		return st, fmt.Errorf("%s: notify is not an array", path)
	}
	for _, v := range arr {
		s, _ := v.(string)
		st.argv = append(st.argv, s)
	}
	if len(st.argv) >= 2 && refs.Ours(st.argv[0]) && st.argv[1] == "codex" {
		st.ours, st.ref = true, st.argv[0]
		return st, nil
	}
	if len(st.argv) > 0 {
		st.program = filepath.Base(st.argv[0])
	}
	for i, a := range st.argv {
		var prev string
		switch {
		case a == "--previous-notify" && i+1 < len(st.argv):
			prev = st.argv[i+1]
		case strings.HasPrefix(a, "--previous-notify="):
			prev = strings.TrimPrefix(a, "--previous-notify=")
		default:
			continue
		}
		var p []string
		if json.Unmarshal([]byte(prev), &p) == nil && len(p) >= 2 && refs.Ours(p[0]) && p[1] == "codex" {
			st.chained, st.ref = true, p[0]
		}
	}
	return st, nil
}

func notifyLine(ref string) string {
	return "notify = " + tomledit.Array([]string{ref, "codex", "notify"})
}

// installNotify wires notify, leaving a chain (or another program's notify)
// alone. warn carries what the user must know about a notify tma left.
func installNotify(env Env, src []byte, path string, w *Wrapper, respell bool, refs Refs) (out []byte, warn string, err error) {
	st, err := readNotify(src, path, refs)
	if err != nil {
		return nil, "", err
	}
	want := []string{w.Ref, "codex", "notify"}
	switch {
	case !st.found:
		return tomledit.Insert(src, notifyLine(w.Ref)), "", nil
	case st.ours:
		if equal(st.argv, want) || (!respell && len(st.argv) == 3 && st.argv[2] == "notify" && env.Verdict(st.ref, w) == "") {
			return src, "", nil
		}
		return tomledit.Replace(src, st.stmt, notifyLine(w.Ref)), "", nil
	case st.chained:
		if v := env.Verdict(st.ref, w); v != "" {
			return nil, "", fmt.Errorf("codex notify is chained through %s, whose --previous-notify names %s; tma will not rewrite another program's argv: edit %s by hand and replace %q with %q in that --previous-notify array",
				st.program, v, env.Pretty(path), st.ref, w.Ref)
		}
		return src, fmt.Sprintf("codex notify chained through %s: left as is", st.program), nil
	}
	return src, fmt.Sprintf("codex notify is taken by %s and does not chain tma-hook: left as is (codex allows one notify program); turn ends still arrive through hooks.json's Stop once trusted", st.program), nil
}

func uninstallNotify(src []byte, path string, refs Refs) (out []byte, warn string, err error) {
	st, err := readNotify(src, path, refs)
	if err != nil {
		return nil, "", err
	}
	switch {
	case st.ours:
		return tomledit.Delete(src, st.stmt), "", nil
	case st.chained:
		return src, fmt.Sprintf("codex notify still chains tma-hook through %s; remove it from that program's --previous-notify by hand", st.program), nil
	}
	return src, "", nil
}

func checkNotify(env Env, src []byte, path string, w *Wrapper, refs Refs) (problem, note string, wired bool, err error) {
	st, err := readNotify(src, path, refs)
	if err != nil {
		return "", "", false, err
	}
	switch {
	case !st.found:
		return "notify missing", "", false, nil
	case st.ours || st.chained:
		if v := env.Verdict(st.ref, w); v != "" {
			return "notify drifted: " + v, "", true, nil
		}
		if st.chained {
			return "", "notify chained through " + st.program, true, nil
		}
		return "", "", true, nil
	}
	return "notify taken by " + st.program + " (not chained to tma-hook)", "", false, nil
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
