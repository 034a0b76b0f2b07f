package install

import (
	"bytes"
	"encoding/json"
	"fmt"

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
)

// entry is one tma-hook command found in the hooks object.
type entry struct {
	event    string // the member it sits under
	elem     int    // index in that event's array
	hook     int    // index in the group's hooks array; -1 in flatShape
	cmd      string
	ref      string
	cmdEvent string
	alone    bool // the group holds only this hook
}

func (s hookShape) entry(cmd string) []byte {
	var v any
	if s == flatShape {
		v = struct {
			Command string `json:"command"`
		}{cmd}
	} else {
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
			if s == flatShape {
				if c, ok := el.Get("command").Str(src); ok {
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

// removeEntry deletes one entry, and the containers it leaves empty.
func (s hookShape) removeEntry(src []byte, root *jsonedit.Node, e entry) []byte {
	hooks := root.Get("hooks")
	arr := hooks.Get(e.event)
	if !e.alone {
		hs := arr.Elems[e.elem].Get("hooks")
		return jsonedit.DeleteElem(src, hs, e.hook)
	}
	if len(arr.Elems) > 1 {
		return jsonedit.DeleteElem(src, arr, e.elem)
	}
	if len(hooks.Members) > 1 {
		return jsonedit.DeleteMember(src, hooks, hooks.Index(e.event))
	}
	return jsonedit.DeleteMember(src, root, root.Index("hooks"))
}

// setCommand rewrites one entry's command string in place.
func (s hookShape) setCommand(src []byte, root *jsonedit.Node, e entry, cmd string) []byte {
	el := root.Lookup("hooks", e.event).Elems[e.elem]
	n := el.Get("command")
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
	refs   Refs // which commands are tma's
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
				src, changed = h.shape.removeEntry(src, root, e), true
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
		src = h.shape.removeEntry(src, root, es[0])
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
