package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseHookCommand(t *testing.T) {
	for cmd, want := range map[string][3]string{
		"tma-hook claude Stop":                      {"tma-hook", "claude", "Stop"},
		"'/a b/tma-hook' codex PreToolUse":          {"/a b/tma-hook", "codex", "PreToolUse"},
		"/x/tma-hook gemini AfterAgent 2>/dev/null": {"/x/tma-hook", "gemini", "AfterAgent"},
	} {
		ref, agent, ev, ok := ParseHookCommand(cmd)
		if !ok || [3]string{ref, agent, ev} != want {
			t.Errorf("%q: %v %q %q %q", cmd, ok, ref, agent, ev)
		}
	}
	if _, _, _, ok := ParseHookCommand("notify-send claude Stop"); ok {
		t.Error("foreign command taken for tma's")
	}
	if c := HookCommand("/a b/tma-hook", "claude", "Stop"); c != "'/a b/tma-hook' claude Stop" {
		t.Errorf("%q", c)
	}
}

func TestStoreAlias(t *testing.T) {
	// A wrapper in a store is written as the $PATH entry outside it that
	// reaches the same file; the store test uses a fake prefix.
	dir := t.TempDir()
	store := filepath.Join(dir, "store", "tma-hook")
	profile := filepath.Join(dir, "profile")
	os.MkdirAll(filepath.Dir(store), 0o755)
	os.MkdirAll(profile, 0o755)
	os.WriteFile(store, []byte("#!/bin/sh\n"), 0o755)
	os.Symlink(store, filepath.Join(profile, "tma-hook"))
	stores = append(stores, filepath.Join(dir, "store")+"/")
	defer func() { stores = stores[:len(stores)-1] }()
	env := map[string]string{"PATH": profile, "HOME": dir}
	e := Env{Getenv: func(k string) string { return env[k] }}
	w, err := e.ResolveWrapper(RefAbsolute, store)
	if err != nil {
		t.Fatal(err)
	}
	if w.Ref != filepath.Join(profile, "tma-hook") {
		t.Errorf("ref %q, want the profile path", w.Ref)
	}
	env["PATH"] = t.TempDir()
	w, err = e.ResolveWrapper(RefAbsolute, store)
	if err != nil || w.Ref != store || len(w.Warnings) != 1 {
		t.Errorf("no alias: %v %q %v", err, w.Ref, w.Warnings)
	}
}

func TestParseHooksAndNormalize(t *testing.T) {
	out := "after-select-pane[0] display-message -p hi\nafter-select-pane[3] " + ClearCommand("/t/tma", HookSelectPane) + "\nclient-focus-in\n"
	hs := ParseHooks(out)
	if len(hs) != 2 || hs[1].Index != 3 || !hs[1].Ours() || hs[0].Ours() {
		t.Fatalf("%+v", hs)
	}
	if !SameCommand(`run-shell 'x #{pane_id}'`, `run-shell "x ##{pane_id}"`) {
		t.Error("quoting variants differ")
	}
	th := &TmuxHooks{TmaPath: "/t/tma"}
	lines, _ := th.InstallLines(hs)
	if len(lines) != 1 || lines[0][:len("set-hook -ga session-window-changed")] != "set-hook -ga session-window-changed" {
		t.Errorf("%q", lines)
	}
}

// TestRefsKnowAWrapperNotNamedTmaHook: a command is tma's by the wrapper's
// name, by a reference tma wrote, or by reaching the wrapper file; and an
// install through a wrapper called otherwise converges and uninstalls.
func TestRefsKnowAWrapperNotNamedTmaHook(t *testing.T) {
	dir := t.TempDir()
	wrap := filepath.Join(dir, "bin", "tma-hook-wrap")
	os.MkdirAll(filepath.Dir(wrap), 0o755)
	os.WriteFile(wrap, []byte("#!/bin/sh\n"), 0o755)
	link := filepath.Join(dir, "hook-link")
	os.Symlink(wrap, link)
	env := map[string]string{"PATH": filepath.Dir(wrap), "HOME": dir}
	e := Env{Getenv: func(k string) string { return env[k] }}
	w := &Wrapper{File: wrap, Ref: wrap, Mode: RefAbsolute}
	refs := e.Refs(w, "/old/recorded-wrapper")
	for word, want := range map[string]bool{
		wrap: true, link: true, "tma-hook-wrap": true, "/x/tma-hook": true, "/old/recorded-wrapper": true,
		"notify-send": false, "/bin/sh": false, "": false,
	} {
		if got := refs.Ours(word); got != want {
			t.Errorf("Ours(%q) = %v, want %v", word, got, want)
		}
	}
	if _, _, _, ok := (Refs{}).Parse(wrap + " claude Stop"); ok {
		t.Error("with no wrapper known, a program not named tma-hook is tma's")
	}
	spec := hookSpec{shape: groupShape, agent: "claude", events: []string{"Stop", "SessionEnd"}, path: "settings.json", refs: refs}
	orig := []byte("{\n  \"model\": \"opus\"\n}\n")
	out, err := spec.install(e, orig, w, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), wrap+" claude"); n != 2 {
		t.Fatalf("%d entries:\n%s", n, out)
	}
	again, err := spec.install(e, out, w, false)
	if err != nil || string(again) != string(out) {
		t.Fatalf("re-install changed the file (%v):\n%s", err, again)
	}
	if probs, wired, err := spec.check(e, out, w); err != nil || !wired || len(probs) > 0 {
		t.Fatalf("check: %v %v %v", probs, wired, err)
	}
	back, err := spec.uninstall(out)
	if err != nil || string(back) != string(orig) {
		t.Fatalf("uninstall (%v):\n%s", err, back)
	}
}

// TestCopilotBashShape: Copilot's hook entries name their command under "bash"
// ({"type":"command","bash":…} under hooks.<event>); an install writes that shape beside the
// user's own entry, finds its own again (a re-install changes nothing, check is clean) and an
// uninstall gives back the file as it was.
func TestCopilotBashShape(t *testing.T) {
	dir := t.TempDir()
	wrap := filepath.Join(dir, "bin", "tma-hook")
	os.MkdirAll(filepath.Dir(wrap), 0o755)
	os.WriteFile(wrap, []byte("#!/bin/sh\n"), 0o755)
	env := map[string]string{"PATH": filepath.Dir(wrap), "HOME": dir}
	e := Env{Getenv: func(k string) string { return env[k] }}
	w := &Wrapper{File: wrap, Ref: wrap, Mode: RefAbsolute}
	spec := hookSpec{shape: bashShape, agent: "copilot", events: []string{"agentStop", "sessionStart"}, path: "settings.json", refs: e.Refs(w, "")}
	orig := []byte("{\n  \"banner\": \"never\",\n  \"hooks\": {\n    \"agentStop\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./audit.sh\"\n      }\n    ]\n  }\n}\n")
	out, err := spec.install(e, orig, w, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"bash": "` + wrap + ` copilot agentStop"`, `"bash": "` + wrap + ` copilot sessionStart"`, `"bash": "./audit.sh"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("install lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), `"command": "`+wrap) || strings.Count(string(out), `"type": "command"`) != 3 {
		t.Errorf("each entry is {\"type\": \"command\", \"bash\": …}:\n%s", out)
	}
	again, err := spec.install(e, out, w, false)
	if err != nil || string(again) != string(out) {
		t.Fatalf("re-install changed the file (%v):\n%s", err, again)
	}
	if probs, wired, err := spec.check(e, out, w); err != nil || !wired || len(probs) > 0 {
		t.Fatalf("check: %v %v %v", probs, wired, err)
	}
	back, err := spec.uninstall(out)
	if err != nil || string(back) != string(orig) {
		t.Fatalf("uninstall (%v):\n%s", err, back)
	}
}
