package install

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tmaproject/tma/shell/plugins"
)

// pluginAdapter writes a whole JS file tma owns (OpenCode's plugin, pi's
// extension). The file is recognised by its first line.
type pluginAdapter struct {
	name string
	path PathKey
}

// opencodeSources maps each tma event the opencode manifest may name to the
// OpenCode sources that raise it (see shell/plugins/opencode.js).
var opencodeSources = map[string][]string{
	"session-start":       {"load", "session.created"},
	"user-prompt-submit":  {"session.status:busy", "chat.message", "tool.execute.before"},
	"permission-required": {"permission.asked", "permission.updated"},
	"permission-replied":  {"permission.replied"},
	// The built-in question tool: asked, then answered or dismissed with Esc
	// (the lab saw question.asked, question.replied, question.rejected).
	"question-asked":   {"question.asked"},
	"question-replied": {"question.replied", "question.rejected"},
	"stop":             {"session.idle", "session.status:idle"},
}

func (a *pluginAdapter) Name() string { return a.name }

func (a *pluginAdapter) Paths(e Env) []string { return []string{e.Path(a.path)} }

func (a *pluginAdapter) marker() string {
	return "// tma: " + a.name + " hook forwarder, written by `tma install-hooks " + a.name + "`."
}

var refLine = regexp.MustCompile(`(?m)^const TMA_HOOK = ("(?:[^"\\]|\\.)*");$`)

// render fills the template; unmapped lists manifest events the plugin has
// no source for.
func (a *pluginAdapter) render(ref string, events []string) (out string, unmapped []string) {
	tpl := plugins.Pi
	var table []byte
	if a.name == "opencode" {
		tpl = plugins.OpenCode
		m := map[string][]string{}
		for _, e := range events {
			if s, ok := opencodeSources[e]; ok {
				m[e] = s
			} else {
				unmapped = append(unmapped, e)
			}
		}
		var b strings.Builder
		b.WriteString("{")
		for i, k := range sortedKeys(m) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n  %s: %s", marshal(k), marshal(m[k]))
		}
		b.WriteString("\n}")
		table = []byte(b.String())
	} else {
		if events == nil {
			events = []string{}
		}
		table = marshal(events)
	}
	out = strings.Replace(tpl, "__TMA_HOOK__", string(marshal(ref)), 1)
	out = strings.Replace(out, "__EVENTS__", string(table), 1)
	return out, unmapped
}

// existing reads the installed file: ours is false for a file tma did not
// write; ref is the wrapper reference it carries.
func (a *pluginAdapter) existing(path string) (src []byte, existed, ours bool, ref string, err error) {
	src, existed, _, err = ReadFile(path)
	if err != nil || !existed {
		return src, existed, false, "", err
	}
	if !strings.HasPrefix(string(src), a.marker()) {
		return src, true, false, "", nil
	}
	if m := refLine.FindSubmatch(src); m != nil {
		_ = json.Unmarshal(m[1], &ref)
	}
	return src, true, true, ref, nil
}

func (a *pluginAdapter) Install(c *Ctx) (*Plan, error) {
	if c.Wrapper == nil {
		return nil, fmt.Errorf("no wrapper to wire")
	}
	path := c.Env.Path(a.path)
	_, existed, ours, ref, err := a.existing(path)
	if err != nil {
		return nil, err
	}
	if existed && !ours {
		return nil, fmt.Errorf("%s exists and was not written by tma; move it aside (or point --%s elsewhere) and re-run", c.Env.Pretty(path), a.path)
	}
	use := c.Wrapper.Ref
	if ours && ref != "" && !c.Respell && c.Env.Verdict(ref, c.Wrapper) == "" {
		use = ref // same wrapper, spelled as it was: leave the spelling alone
	}
	want, unmapped := a.render(use, c.Events)
	p := &Plan{}
	for _, e := range unmapped {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the %s manifest maps %q, which the plugin has no source for: not forwarded", a.name, e))
	}
	what := "agent hooks"
	if a.name == "opencode" {
		what = "opencode plugin"
	} else {
		what = "pi extension"
	}
	ch, err := edit(path, what, func(old []byte, _ bool) ([]byte, bool, error) { return []byte(want), false, nil })
	if err != nil {
		return nil, err
	}
	if ch != nil {
		ch.Mode = 0o600
		p.Changes = append(p.Changes, *ch)
	}
	return p, nil
}

func (a *pluginAdapter) Uninstall(c *Ctx) (*Plan, error) {
	path := c.Env.Path(a.path)
	src, existed, ours, _, err := a.existing(path)
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	switch {
	case !existed:
	case !ours:
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s was not written by tma: left alone", c.Env.Pretty(path)))
	default:
		p.Changes = append(p.Changes, Change{Path: path, What: a.name + " hook forwarder", Old: src, Existed: true, Remove: true})
	}
	return p, nil
}

func (a *pluginAdapter) Check(c *Ctx) (*Status, error) {
	path := c.Env.Path(a.path)
	src, existed, ours, ref, err := a.existing(path)
	if err != nil {
		return nil, err
	}
	st := &Status{Wired: ours}
	pp := c.Env.Pretty(path)
	switch {
	case !existed:
		st.Problems = append(st.Problems, pp+" missing")
	case !ours:
		st.Problems = append(st.Problems, pp+" was not written by tma")
	default:
		if v := c.Env.Verdict(ref, c.Wrapper); v != "" {
			st.Problems = append(st.Problems, pp+": drifted: "+v)
		} else if want, _ := a.render(ref, c.Events); want != string(src) {
			st.Problems = append(st.Problems, pp+": out of date (this build writes a different "+a.name+" forwarder)")
		}
	}
	return st, nil
}

// OpencodeEvent is the tma event the OpenCode plugin forwards for a bus
// source ("" for one it ignores): the plugin's table, for the lab's replay.
func OpencodeEvent(source string) string {
	for name, srcs := range opencodeSources {
		for _, s := range srcs {
			if s == source {
				return name
			}
		}
	}
	return ""
}
