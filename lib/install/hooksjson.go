package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmaproject/tma/lib/jsonedit"
)

// hookShape is how an agent's JSON hooks object holds a command.
type hookShape int

const (
	// groupShape: {"hooks":{"<Event>":[{"hooks":[{"type":"command","command":"…"}]}]}}
	// (claude, codex hooks.json, gemini).
	groupShape hookShape = iota
	// flatShape: {"version":1,"hooks":{"<event>":[{"command":"…"}]}} (cursor).
	flatShape
	// bashShape: {"hooks":{"<event>":[{"type":"command","bash":"…"}]}} (copilot:
	// a hook names its Unix command under "bash", its Windows one under
	// "powershell").
	bashShape
)

// key is the member an entry's command string sits in.
func (s hookShape) key() string {
	if s == bashShape {
		return "bash"
	}
	return "command"
}

// entry is one tma-hook command found in the hooks object.
type entry struct {
	event    string // the member it sits under
	elem     int    // index in that event's array
	hook     int    // index in the group's hooks array; -1 in flatShape and bashShape
	cmd      string
	ref      string
	cmdEvent string
	alone    bool // the group holds only this hook
}

func (s hookShape) entry(cmd string) []byte {
	var v any
	switch s {
	case flatShape:
		v = struct {
			Command string `json:"command"`
		}{cmd}
	case bashShape:
		v = struct {
			Type string `json:"type"`
			Bash string `json:"bash"`
		}{"command", cmd}
	default:
		type h struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		}
		v = struct {
			Hooks []h `json:"hooks"`
		}{[]h{{"command", cmd}}}
	}
	return marshal(v)
}

// marshal renders v compactly without HTML escapes (a hook command's & and
// > stay readable in the user's file).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func parseObject(src []byte, path string) (*jsonedit.Node, error) {
	root, err := jsonedit.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s: not valid JSON (%v); tma will not edit it", path, err)
	}
	if root.Kind != jsonedit.Object {
		return nil, fmt.Errorf("%s: not a JSON object; tma will not edit it", path)
	}
	if h := root.Get("hooks"); h != nil && h.Kind != jsonedit.Object {
		return nil, fmt.Errorf("%s: \"hooks\" is not an object; tma will not edit it", path)
	}
	return root, nil
}

// entries lists the agent's tma-hook commands in the hooks object.
func (s hookShape) entries(src []byte, root *jsonedit.Node, agent string, refs Refs) []entry {
	var out []entry
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != jsonedit.Object {
		return nil
	}
	for _, m := range hooks.Members {
		if m.Value.Kind != jsonedit.Array {
			continue
		}
		for ei, el := range m.Value.Elems {
			if s != groupShape {
				if c, ok := el.Get(s.key()).Str(src); ok {
					if ref, a, ev, ok := refs.Parse(c); ok && a == agent {
						out = append(out, entry{event: m.Key, elem: ei, hook: -1, cmd: c, ref: ref, cmdEvent: ev, alone: true})
					}
				}
				continue
			}
			hs := el.Get("hooks")
			if hs == nil || hs.Kind != jsonedit.Array {
				continue
			}
			for hi, h := range hs.Elems {
				if c, ok := h.Get("command").Str(src); ok {
					if ref, a, ev, ok := refs.Parse(c); ok && a == agent {
						out = append(out, entry{event: m.Key, elem: ei, hook: hi, cmd: c, ref: ref, cmdEvent: ev, alone: len(hs.Elems) == 1})
					}
				}
			}
		}
	}
	return out
}

// removeEntry deletes one entry, and the containers it leaves empty unless
// they are the user's (keep: the hooks object, or an event's array, that
// install found empty and filled).
func (s hookShape) removeEntry(src []byte, root *jsonedit.Node, e entry, keep func(keys ...string) bool) []byte {
	hooks := root.Get("hooks")
	arr := hooks.Get(e.event)
	if !e.alone {
		hs := arr.Elems[e.elem].Get("hooks")
		return jsonedit.DeleteElem(src, hs, e.hook)
	}
	if len(arr.Elems) > 1 || keep("hooks", e.event) {
		return jsonedit.DeleteElem(src, arr, e.elem)
	}
	if len(hooks.Members) > 1 || keep("hooks") {
		return jsonedit.DeleteMember(src, hooks, hooks.Index(e.event))
	}
	return jsonedit.DeleteMember(src, root, root.Index("hooks"))
}

// Kept is a value of the user's whose bytes an install changed and an
// uninstall puts back, as install-state.toml records it: an empty
// container install filled (the hooks object, an event's array), which
// uninstall leaves in place once tma's entries are gone, a blank document,
// and the statusLine command the shim wraps. tma cannot tell an empty
// "hooks": {} of the user's from one it created once it is full, so
// install writes down which ones it found.
type Kept struct {
	File string `toml:"file"`
	// Keys are the members leading to it ("hooks", then the event); none
	// is the document itself (a blank file, or an empty object spelled
	// otherwise than {}), whose whole bytes Text then holds.
	Keys []string `toml:"keys"`
	Text string   `toml:"text"` // its bytes before the install
}

// shimKeys lead to the statusLine command the shim wraps.
var shimKeys = []string{"statusLine", "command"}

func keyOf(keys []string) string { return strings.Join(keys, "\x00") }

// keeps reports whether the container at keys is one the record keeps.
func keeps(kept []Kept, path string) func(keys ...string) bool {
	return func(keys ...string) bool {
		for _, k := range kept {
			if k.File == path && len(k.Keys) > 0 && keyOf(k.Keys) == keyOf(keys) {
				return true
			}
		}
		return false
	}
}

// empties lists the user's empty containers an install of src fills: the
// hooks object, and the array of each event it wires.
func (h hookSpec) empties(src []byte) []Kept {
	root, err := parseObject(src, h.path)
	if err != nil {
		return nil
	}
	hooks := root.Get("hooks")
	if hooks == nil {
		return nil
	}
	var out []Kept
	if len(hooks.Members) == 0 {
		out = append(out, Kept{File: h.path, Keys: []string{"hooks"}, Text: string(hooks.Text(src))})
	}
	for _, e := range h.events {
		if arr := hooks.Get(e); arr != nil && arr.Kind == jsonedit.Array && len(arr.Elems) == 0 {
			out = append(out, Kept{File: h.path, Keys: []string{"hooks", e}, Text: string(arr.Text(src))})
		}
	}
	return out
}

// docKept is the record of a document that held nothing before install
// (blank, or an empty object spelled otherwise than {}): nil for any
// other, and for a file install creates.
func docKept(path string, old []byte, existed bool) []Kept {
	if !existed {
		return nil
	}
	if len(bytes.TrimSpace(old)) > 0 {
		root, err := jsonedit.Parse(old)
		if err != nil || root.Kind != jsonedit.Object || len(root.Members) > 0 || string(root.Text(old)) == "{}" {
			return nil
		}
	}
	return []Kept{{File: path, Text: string(old)}}
}

// restoreKept gives the user's kept containers in src, emptied by an
// uninstall, the bytes they had, and a restored statusLine command its
// original spelling (when it decodes to the same string); a document that
// holds nothing but tma's base (holdsNothing) goes back to its whole
// recorded bytes. A record whose text is not an empty container of the
// same kind, or the same string, is not trusted.
func restoreKept(src []byte, path string, kept []Kept, holdsNothing func([]byte) bool) []byte {
	for _, k := range kept {
		if k.File != path {
			continue
		}
		if len(k.Keys) == 0 {
			if holdsNothing(src) && blankOrEmptyObject(k.Text) {
				src = []byte(k.Text)
			}
			continue
		}
		root, err := jsonedit.Parse(src)
		if err != nil || root.Kind != jsonedit.Object {
			return src
		}
		n := root.Lookup(k.Keys...)
		if n == nil || len(n.Members) > 0 || len(n.Elems) > 0 || string(n.Text(src)) == k.Text {
			continue
		}
		if n.Kind == jsonedit.String {
			var was string
			if now, ok := n.Str(src); ok && json.Unmarshal([]byte(k.Text), &was) == nil && was == now {
				src = jsonedit.ReplaceText(src, n, k.Text)
			}
			continue
		}
		if want, err := jsonedit.Parse([]byte(k.Text)); err == nil && want.Kind == n.Kind && len(want.Members) == 0 && len(want.Elems) == 0 && (n.Kind == jsonedit.Object || n.Kind == jsonedit.Array) {
			src = jsonedit.ReplaceText(src, n, k.Text)
		}
	}
	return src
}

func blankOrEmptyObject(s string) bool {
	if strings.TrimSpace(s) == "" {
		return true
	}
	root, err := jsonedit.Parse([]byte(s))
	return err == nil && root.Kind == jsonedit.Object && len(root.Members) == 0
}

// setCommand rewrites one entry's command string in place.
func (s hookShape) setCommand(src []byte, root *jsonedit.Node, e entry, cmd string) []byte {
	el := root.Lookup("hooks", e.event).Elems[e.elem]
	n := el.Get(s.key())
	if s == groupShape {
		n = el.Get("hooks").Elems[e.hook].Get("command")
	}
	return jsonedit.ReplaceValue(src, n, marshal(cmd))
}

// hookSpec is one agent's JSON hooks to wire.
type hookSpec struct {
	shape  hookShape
	agent  string
	events []string
	path   string
	refs   Refs   // which commands are tma's
	kept   []Kept // the user's containers an earlier install filled
}

// install returns src with every event wired exactly once, stale or
// duplicate tma entries of this agent rewritten or removed, and nothing
// else touched.
func (h hookSpec) install(env Env, src []byte, w *Wrapper, respell bool) ([]byte, error) {
	want := map[string]bool{}
	for _, e := range h.events {
		want[e] = true
	}
	for guard := 0; guard < 1000; guard++ {
		root, err := parseObject(src, h.path)
		if err != nil {
			return nil, err
		}
		changed := false
		kept := map[string]bool{}
		for _, e := range h.shape.entries(src, root, h.agent, h.refs) {
			if !want[e.event] || e.cmdEvent != e.event || kept[e.event] {
				src, changed = h.shape.removeEntry(src, root, e, keeps(h.kept, h.path)), true
				break
			}
			kept[e.event] = true
			desired := HookCommand(w.Ref, h.agent, e.event)
			if e.cmd != desired && (respell || env.Verdict(e.ref, w) != "" || len(shellWords(e.cmd)) != 3) {
				src, changed = h.shape.setCommand(src, root, e, desired), true
				break
			}
		}
		if changed {
			continue
		}
		var missing []string
		for _, e := range h.events {
			if !kept[e] {
				missing = append(missing, e)
			}
		}
		if len(missing) == 0 {
			return src, nil
		}
		hooks := root.Get("hooks")
		if hooks == nil {
			obj := "{"
			for i, e := range missing {
				if i > 0 {
					obj += ","
				}
				obj += string(marshal(e)) + ":[" + string(h.shape.entry(HookCommand(w.Ref, h.agent, e))) + "]"
			}
			src = jsonedit.InsertMember(src, root, "hooks", []byte(obj+"}"))
			continue
		}
		e := missing[0]
		ent := h.shape.entry(HookCommand(w.Ref, h.agent, e))
		switch arr := hooks.Get(e); {
		case arr == nil:
			src = jsonedit.InsertMember(src, hooks, e, []byte("["+string(ent)+"]"))
		case arr.Kind == jsonedit.Array:
			src = jsonedit.AppendElem(src, arr, ent)
		default:
			return nil, fmt.Errorf("%s: hooks.%s is not an array; tma will not edit it", h.path, e)
		}
	}
	return nil, fmt.Errorf("%s: the hooks edit did not converge", h.path)
}

// uninstall removes every tma-hook command of this agent.
func (h hookSpec) uninstall(src []byte) ([]byte, error) {
	for {
		root, err := parseObject(src, h.path)
		if err != nil {
			return nil, err
		}
		es := h.shape.entries(src, root, h.agent, h.refs)
		if len(es) == 0 {
			return src, nil
		}
		src = h.shape.removeEntry(src, root, es[0], keeps(h.kept, h.path))
	}
}

// check lists what is missing or drifted; wired is true when any tma entry
// of this agent is present.
func (h hookSpec) check(env Env, src []byte, w *Wrapper) (problems []string, wired bool, err error) {
	root, err := parseObject(src, h.path)
	if err != nil {
		return nil, false, err
	}
	es := h.shape.entries(src, root, h.agent, h.refs)
	byEvent := map[string]entry{}
	for _, e := range es {
		if _, ok := byEvent[e.event]; !ok && e.cmdEvent == e.event {
			byEvent[e.event] = e
		}
	}
	for _, ev := range h.events {
		e, ok := byEvent[ev]
		if !ok {
			problems = append(problems, fmt.Sprintf("hook %s missing", ev))
			continue
		}
		if v := env.Verdict(e.ref, w); v != "" {
			problems = append(problems, fmt.Sprintf("hook %s drifted: %s", ev, v))
		}
	}
	return problems, len(es) > 0, nil
}
