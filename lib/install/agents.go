package install

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/tmaproject/tma/lib/jsonedit"
)

// Ctx is one agent's run.
type Ctx struct {
	Env     Env
	Agent   string
	Events  []string // the events to wire, in order (from the agent's manifest)
	Wrapper *Wrapper // nil when the wrapper cannot be resolved (uninstall, check)
	Respell bool     // rewrite references that resolve right but are spelled otherwise
	TmaPath string   // the tma binary the statusline shim names
	// Statusline is this run's ask; Recorded is whether statusline-state.toml
	// lists the agent.
	Statusline StatuslineWant
	Recorded   bool
	// Created lists the files an earlier install created (from the record),
	// which uninstall deletes once nothing but tma's base is left in them.
	Created map[string]bool
	// Written is the wrapper reference the record says an earlier install
	// wrote: its entries are tma's whatever the wrapper file is called.
	Written string
	// Kept are the user's containers earlier installs filled (from the
	// record): uninstall leaves them as they were.
	Kept []Kept
}

// refs tells this run which hook commands are tma's.
func (c *Ctx) refs() Refs { return c.Env.Refs(c.Wrapper, c.Written) }

// Plan is what one agent's install or uninstall would change.
type Plan struct {
	Changes  []Change
	Notes    []string // printed after the change is applied (trust gates)
	Warnings []string // printed before asking
	// Kept are the user's empty containers (and blank documents) this
	// install fills, for the record: what uninstall must leave.
	Kept []Kept
}

// Status is one agent's wiring as --check sees it.
type Status struct {
	Wired    bool     // carries any tma wiring
	Problems []string // empty when complete
	Notes    []string
	Shim     bool // the statusline shim is in place
}

// Adapter wires one agent.
type Adapter interface {
	Name() string
	// Paths are the files the adapter edits.
	Paths(e Env) []string
	Install(c *Ctx) (*Plan, error)
	Uninstall(c *Ctx) (*Plan, error)
	Check(c *Ctx) (*Status, error)
}

// Adapters lists every agent install-hooks can wire, in order.
func Adapters() []Adapter {
	return []Adapter{
		&jsonHooks{name: "claude", path: ClaudeSettings, shape: groupShape, statusline: true,
			extra: []string{"SubagentStart", "SubagentStop"}},
		&codexAdapter{},
		&jsonHooks{name: "gemini", path: GeminiSettings, shape: groupShape,
			never: []string{"BeforeModel", "AfterModel"},
			note:  "gemini folder-trust gate: the settings.json hooks load only after you trust the working folder in gemini (it prompts \"Trusting a folder allows Gemini CLI to load its local configurations, including … hooks …\" on first run there). Once the folder is trusted the hooks fire; there is no separate per-hook trust step."},
		&pluginAdapter{name: "opencode", path: OpencodePlugin},
		&jsonHooks{name: "cursor", path: CursorHooks, shape: flatShape, statusline: true, shimPath: CursorCLIConfig,
			base: "{\n  \"version\": 1\n}\n"},
		&pluginAdapter{name: "pi", path: PiExtension},
		// Qwen Code (issue 30): Claude's hook events and entry shape in
		// ~/.qwen/settings.json.
		&jsonHooks{name: "qwen", path: QwenSettings, shape: groupShape},
		// GitHub Copilot CLI (issue 30): its own camelCase events in
		// ~/.copilot/settings.json, each entry {"type":"command","bash":…}.
		&jsonHooks{name: "copilot", path: CopilotSettings, shape: bashShape},
	}
}

// Lookup returns the adapter for name.
func Lookup(name string) Adapter {
	for _, a := range Adapters() {
		if a.Name() == name {
			return a
		}
	}
	return nil
}

// Names lists the agents install-hooks can wire.
func Names() []string {
	var out []string
	for _, a := range Adapters() {
		out = append(out, a.Name())
	}
	return out
}

// EventsFor filters a manifest's events for an adapter: unique, in order,
// plus the adapter's extra events, minus the ones it must never hook.
func EventsFor(a Adapter, manifest []string) []string {
	var never, extra []string
	if j, ok := a.(*jsonHooks); ok {
		never, extra = j.never, j.extra
	}
	seen := map[string]bool{}
	for _, n := range never {
		seen[n] = true
	}
	var out []string
	for _, e := range append(append([]string{}, manifest...), extra...) {
		if e != "" && !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// edit computes one file's change; fn gets the current text ("" when the
// file is missing) and returns the new text, or remove.
func edit(path, what string, fn func(old []byte, existed bool) (new []byte, remove bool, err error)) (*Change, error) {
	old, existed, mode, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	nw, remove, err := fn(old, existed)
	if err != nil {
		return nil, err
	}
	if remove {
		if !existed {
			return nil, nil
		}
		return &Change{Path: path, What: what, Old: old, Existed: true, Mode: mode, Remove: true}, nil
	}
	if existed && bytes.Equal(old, nw) {
		return nil, nil
	}
	if !existed && nw == nil {
		return nil, nil
	}
	return &Change{Path: path, What: what, Old: old, Existed: existed, Mode: mode, New: nw}, nil
}

// jsonHooks wires a JSON hooks object (claude, gemini, cursor).
type jsonHooks struct {
	name       string
	path       PathKey
	shape      hookShape
	extra      []string // events wired beyond the manifest's
	never      []string // events never wired
	note       string
	statusline bool
	shimPath   PathKey // the file holding statusLine; "" = the hooks file
	base       string  // a new file's content before tma's keys ("{}\n" when empty)
}

func (j *jsonHooks) Name() string { return j.name }

func (j *jsonHooks) Paths(e Env) []string {
	ps := []string{e.Path(j.path)}
	if j.shimPath != "" {
		ps = append(ps, e.Path(j.shimPath))
	}
	return ps
}

func (j *jsonHooks) spec(c *Ctx) hookSpec {
	return hookSpec{shape: j.shape, agent: j.name, events: c.Events, path: c.Env.Path(j.path), refs: c.refs(), kept: c.Kept}
}

func (j *jsonHooks) baseDoc() []byte {
	if j.base != "" {
		return []byte(j.base)
	}
	return []byte("{}\n")
}

// emptyAfter is true when a document holds nothing but the base tma would
// create it with.
func (j *jsonHooks) emptyAfter(src []byte) bool {
	root, err := jsonedit.Parse(src)
	if err != nil || root.Kind != jsonedit.Object {
		return false
	}
	for _, m := range root.Members {
		if !(j.base != "" && m.Key == "version") {
			return false
		}
	}
	return true
}

// shimWanted decides whether this run leaves a shim in place.
func shimWanted(c *Ctx, present bool) (want, touch bool) {
	switch c.Statusline {
	case StatuslineOn:
		return true, true
	case StatuslineOff:
		return false, true
	}
	if c.Recorded {
		return true, true // keep the recorded shim current
	}
	return present, false
}

func (j *jsonHooks) Install(c *Ctx) (*Plan, error) {
	if c.Wrapper == nil {
		return nil, fmt.Errorf("no wrapper to wire")
	}
	p := &Plan{}
	hooksPath := c.Env.Path(j.path)
	shimFile := hooksPath
	if j.shimPath != "" {
		shimFile = c.Env.Path(j.shimPath)
	}
	what := "agent hooks"
	// shimEdit also notes the user's command it wraps, whose bytes an
	// unwire puts back.
	shimEdit := func(src []byte, path string) ([]byte, bool, []Kept, error) {
		if !j.statusline {
			return src, false, nil, nil
		}
		root, err := parseObject(src, path)
		if err != nil {
			return nil, false, nil, err
		}
		st := readShim(src, root)
		want, touch := shimWanted(c, st.isShim)
		if !touch {
			return src, false, nil, nil
		}
		var out []byte
		var kept []Kept
		if want {
			if st.command != "" && !st.isShim {
				kept = []Kept{{File: path, Keys: shimKeys, Text: string(root.Lookup(shimKeys...).Text(src))}}
			}
			out, err = wireShim(src, path, c.TmaPath, j.name)
		} else if out, err = unwireShim(src, path); err == nil {
			out = restoreKept(out, path, c.Kept, func([]byte) bool { return false })
		}
		return out, !bytes.Equal(out, src), kept, err
	}
	var kept []Kept
	ch, err := edit(hooksPath, what, func(old []byte, existed bool) ([]byte, bool, error) {
		src := old
		if len(bytes.TrimSpace(src)) == 0 {
			src = j.baseDoc()
		}
		kept = append(docKept(hooksPath, old, existed), j.spec(c).empties(src)...)
		out, err := j.spec(c).install(c.Env, src, c.Wrapper, c.Respell)
		if err != nil {
			return nil, false, err
		}
		if shimFile == hooksPath {
			var changed bool
			var sk []Kept
			if out, changed, sk, err = shimEdit(out, hooksPath); err != nil {
				return nil, false, err
			} else if changed {
				what = "agent hooks, statusline shim"
			}
			kept = append(kept, sk...)
		}
		return out, false, nil
	})
	if err != nil {
		return nil, err
	}
	if ch != nil {
		ch.What = what
		p.Changes = append(p.Changes, *ch)
		p.Kept = append(p.Kept, kept...)
	}
	if shimFile != hooksPath && j.statusline {
		var kept []Kept
		ch, err := edit(shimFile, "statusline shim", func(old []byte, existed bool) ([]byte, bool, error) {
			src := old
			if len(bytes.TrimSpace(src)) == 0 {
				if c.Statusline != StatuslineOn && !c.Recorded {
					return nil, false, nil // never create it just to leave it empty
				}
				src = []byte("{}\n")
			}
			out, _, sk, err := shimEdit(src, shimFile)
			kept = append(docKept(shimFile, old, existed), sk...)
			return out, false, err
		})
		if err != nil {
			return nil, err
		}
		if ch != nil {
			p.Changes = append(p.Changes, *ch)
			p.Kept = append(p.Kept, kept...)
		}
	}
	if j.note != "" {
		p.Notes = append(p.Notes, j.note)
	}
	return p, nil
}

func (j *jsonHooks) Uninstall(c *Ctx) (*Plan, error) {
	p := &Plan{}
	hooksPath := c.Env.Path(j.path)
	for _, f := range j.Paths(c.Env) {
		f := f
		what := "agent hooks"
		if f != hooksPath {
			what = "statusline shim"
		}
		ch, err := edit(f, what, func(old []byte, existed bool) ([]byte, bool, error) {
			if !existed || len(bytes.TrimSpace(old)) == 0 {
				return old, false, nil
			}
			out := old
			var err error
			if f == hooksPath {
				if out, err = j.spec(c).uninstall(out); err != nil {
					return nil, false, err
				}
			}
			if j.statusline {
				if out, err = unwireShim(out, f); err != nil {
					return nil, false, err
				}
			}
			if bytes.Equal(out, old) {
				return old, false, nil
			}
			holdsNothing := j.emptyAfter
			if f != hooksPath {
				holdsNothing = isEmptyObject
			}
			out = restoreKept(out, f, c.Kept, holdsNothing)
			if c.Created[f] && holdsNothing(out) {
				return nil, true, nil
			}
			return out, false, nil
		})
		if err != nil {
			return nil, err
		}
		if ch != nil {
			p.Changes = append(p.Changes, *ch)
		}
	}
	return p, nil
}

func (j *jsonHooks) Check(c *Ctx) (*Status, error) {
	st := &Status{}
	hooksPath := c.Env.Path(j.path)
	src, existed, _, err := ReadFile(hooksPath)
	if err != nil {
		return nil, err
	}
	if !existed || len(bytes.TrimSpace(src)) == 0 {
		st.Problems = append(st.Problems, fmt.Sprintf("%s missing (no tma hooks)", c.Env.Pretty(hooksPath)))
	} else {
		probs, wired, err := j.spec(c).check(c.Env, src, c.Wrapper)
		if err != nil {
			return nil, err
		}
		st.Wired = wired
		for _, pr := range probs {
			st.Problems = append(st.Problems, fmt.Sprintf("%s: %s", c.Env.Pretty(hooksPath), pr))
		}
	}
	if j.statusline {
		f := hooksPath
		if j.shimPath != "" {
			f = c.Env.Path(j.shimPath)
		}
		s, ok, _, _ := ReadFile(f)
		if ok && len(bytes.TrimSpace(s)) > 0 {
			if root, err := parseObject(s, f); err == nil {
				ss := readShim(s, root)
				st.Shim = ss.isShim
				if ss.isShim && c.TmaPath != "" && ss.tmaPath != c.TmaPath && !SameFile(ss.tmaPath, c.TmaPath) {
					st.Notes = append(st.Notes, fmt.Sprintf("statusline shim names %s, not %s", ss.tmaPath, c.TmaPath))
				}
			}
		}
		switch {
		case c.Statusline == StatuslineOn && !st.Shim:
			st.Problems = append(st.Problems, fmt.Sprintf("%s: statusline shim missing", c.Env.Pretty(f)))
		case c.Statusline == StatuslineOff && st.Shim:
			st.Problems = append(st.Problems, fmt.Sprintf("%s: statusline shim present", c.Env.Pretty(f)))
		case c.Statusline == StatuslineKeep && st.Shim && !c.Recorded:
			st.Problems = append(st.Problems, fmt.Sprintf("%s: statusline shim nobody asked for (keep it with --statusline, remove it with --no-statusline)", c.Env.Pretty(f)))
		case c.Statusline == StatuslineKeep && !st.Shim && c.Recorded:
			st.Problems = append(st.Problems, fmt.Sprintf("%s: statusline shim missing (recorded as wanted)", c.Env.Pretty(f)))
		}
	}
	return st, nil
}

// codexAdapter wires codex's two channels: notify in config.toml and a
// Claude-shaped hooks.json.
type codexAdapter struct{}

const codexTrust = "codex trust gate: the hooks.json entries stay INERT until you open codex, run /hooks, and trust the tma-hook entries (codex silently skips untrusted hooks). Codex pins that trust to the exact command string, so an install that CHANGES it (an [install] wrapper_ref switch, a moved wrapper) has to be trusted again. The notify signal works without this step."

func (*codexAdapter) Name() string { return "codex" }

func (*codexAdapter) Paths(e Env) []string { return []string{e.Path(CodexConfig), e.Path(CodexHooks)} }

func (*codexAdapter) split(events []string) (notify bool, hooks []string) {
	for _, e := range events {
		if e == "notify" {
			notify = true
		} else {
			hooks = append(hooks, e)
		}
	}
	return notify, hooks
}

func (a *codexAdapter) spec(c *Ctx) hookSpec {
	_, hooks := a.split(c.Events)
	return hookSpec{shape: groupShape, agent: "codex", events: hooks, path: c.Env.Path(CodexHooks), refs: c.refs(), kept: c.Kept}
}

func (a *codexAdapter) Install(c *Ctx) (*Plan, error) {
	p := &Plan{}
	notify, _ := a.split(c.Events)
	if notify {
		cfg := c.Env.Path(CodexConfig)
		ch, err := edit(cfg, "codex notify", func(old []byte, _ bool) ([]byte, bool, error) {
			out, warn, err := installNotify(c.Env, old, cfg, c.Wrapper, c.Respell, c.refs())
			if warn != "" {
				p.Warnings = append(p.Warnings, warn)
			}
			return out, false, err
		})
		if err != nil {
			return nil, err
		}
		if ch != nil {
			p.Changes = append(p.Changes, *ch)
		}
	}
	hp := c.Env.Path(CodexHooks)
	var kept []Kept
	ch, err := edit(hp, "agent hooks", func(old []byte, existed bool) ([]byte, bool, error) {
		src := old
		if len(bytes.TrimSpace(src)) == 0 {
			src = []byte("{}\n")
		}
		kept = append(docKept(hp, old, existed), a.spec(c).empties(src)...)
		out, err := a.spec(c).install(c.Env, src, c.Wrapper, c.Respell)
		return out, false, err
	})
	if err != nil {
		return nil, err
	}
	if ch != nil {
		p.Changes = append(p.Changes, *ch)
		p.Kept = append(p.Kept, kept...)
	}
	// The trust step matters whenever hooks.json's commands are new or changed.
	if ch != nil {
		p.Notes = append(p.Notes, codexTrust)
	}
	return p, nil
}

func (a *codexAdapter) Uninstall(c *Ctx) (*Plan, error) {
	p := &Plan{}
	cfg := c.Env.Path(CodexConfig)
	ch, err := edit(cfg, "codex notify", func(old []byte, existed bool) ([]byte, bool, error) {
		if !existed {
			return nil, false, nil
		}
		out, warn, err := uninstallNotify(old, cfg, c.refs())
		if warn != "" {
			p.Warnings = append(p.Warnings, warn)
		}
		if err == nil && c.Created[cfg] && len(bytes.TrimSpace(out)) == 0 && !bytes.Equal(out, old) {
			return nil, true, nil
		}
		return out, false, err
	})
	if err != nil {
		return nil, err
	}
	if ch != nil {
		p.Changes = append(p.Changes, *ch)
	}
	hp := c.Env.Path(CodexHooks)
	ch, err = edit(hp, "agent hooks", func(old []byte, existed bool) ([]byte, bool, error) {
		if !existed || len(bytes.TrimSpace(old)) == 0 {
			return old, false, nil
		}
		out, err := a.spec(c).uninstall(old)
		if err != nil || bytes.Equal(out, old) {
			return old, false, err
		}
		out = restoreKept(out, hp, c.Kept, isEmptyObject)
		if c.Created[hp] && isEmptyObject(out) {
			return nil, true, nil
		}
		return out, false, nil
	})
	if err != nil {
		return nil, err
	}
	if ch != nil {
		p.Changes = append(p.Changes, *ch)
	}
	return p, nil
}

func isEmptyObject(src []byte) bool {
	root, err := jsonedit.Parse(src)
	return err == nil && root.Kind == jsonedit.Object && len(root.Members) == 0
}

func (a *codexAdapter) Check(c *Ctx) (*Status, error) {
	st := &Status{}
	notify, _ := a.split(c.Events)
	cfg := c.Env.Path(CodexConfig)
	if notify {
		src, _, _, err := ReadFile(cfg)
		if err != nil {
			return nil, err
		}
		prob, note, wired, err := checkNotify(c.Env, src, cfg, c.Wrapper, c.refs())
		if err != nil {
			return nil, err
		}
		st.Wired = st.Wired || wired
		if prob != "" {
			st.Problems = append(st.Problems, c.Env.Pretty(cfg)+": "+prob)
		}
		if note != "" {
			st.Notes = append(st.Notes, note)
		}
	}
	hp := c.Env.Path(CodexHooks)
	src, existed, _, err := ReadFile(hp)
	if err != nil {
		return nil, err
	}
	if !existed || len(bytes.TrimSpace(src)) == 0 {
		st.Problems = append(st.Problems, fmt.Sprintf("%s missing (no tma hooks)", c.Env.Pretty(hp)))
		return st, nil
	}
	probs, wired, err := a.spec(c).check(c.Env, src, c.Wrapper)
	if err != nil {
		return nil, err
	}
	st.Wired = st.Wired || wired
	for _, pr := range probs {
		st.Problems = append(st.Problems, c.Env.Pretty(hp)+": "+pr)
	}
	return st, nil
}

// sortedKeys is for deterministic output.
func sortedKeys(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
