package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad reads arbitrary bytes as config.toml. A file is either refused
// with a *Error naming the file (and the key or line when known), or it
// loads to a config that passes its own validation and whose accessors
// every stage calls do not fail. Never a panic, never a hang.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"testdata/every_key.toml", "testdata/manual_full_example.toml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"[fold]\ndwell_secs = 0\n",
		"[notify]\non = [\"blocked\", \"done\"]\n[notify.blocked]\ncommand = \"echo hi\"\n",
		"[notify.context_high]\n",
		"[[agent]]\nname = \"claude\"\nprocess_names = [\"claude\", \"claude-code-wrapped-and-long\"]\n",
		"[[agent]]\nname = \"x\"\nenabled = false\n[[agent]]\nname = \"y\"\n",
		"[api.\"we.ird\"]\napi_base = \"http://127.0.0.1:1\"\n",
		"[tmux]\nbin = \"/opt/tmux\"\n[status]\nblocked = { glyph = \"!\", color = \"red\" }\n",
		"[daemon]\nwindow_names = { format = \"#{@agent_state}\" }\n",
		"fold = 3\n",
		"[fold\n",
		"[fold]\ncomand = 1\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "config.toml")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parse(data)
		if err != nil {
			var e *Error
			if c != nil || !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("refusal is not a config error with a message: %#v (config %v)", err, c != nil)
			}
			e.Path = path
			if !strings.HasPrefix(e.Error(), "config "+path) {
				t.Fatalf("error does not name the file: %v", e)
			}
			return
		}
		if err := c.validate(); err != nil {
			t.Fatalf("a loaded config fails its own validation: %v", err)
		}
		env := Env(func(string) (string, bool) { return "", false })
		_ = c.TmuxBin(env)
		_ = c.NotifyFromEvent(env)
		for _, tr := range []string{"blocked", "done", "stall", "context_high", "osc_progress"} {
			_ = c.NotifyCommand(tr, env)
			_ = c.NotifyFires(tr)
		}
		for _, cl := range []string{"blocked", "working", "idle", "done", "unknown"} {
			_ = c.StatusStyle(cl)
			_ = c.PickerStyle(cl)
		}
		_ = c.NotifyLog("/home/u")
		_ = c.ActLog("/home/u")
		for _, a := range c.Agents {
			if _, ok := c.Agent(a.Name); !ok {
				t.Fatalf("agent %q listed but not found", a.Name)
			}
		}
		_ = c.ModelRecognized("claude-opus")
	})
}
