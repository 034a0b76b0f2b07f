package notifycmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/notify"
)

// isolate points the config, the runtime directory and tmux at nothing of
// the machine's.
func isolate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("TMA_CONFIG", "")
	t.Setenv("TMUX", "")
	t.Setenv("TMUX_PANE", "")
	t.Setenv("TMA_SOCKET_PATH", filepath.Join(dir, "no-server"))
}

// The command doctor hints for a failed fire runs, for every trigger a
// failure record can name: a completion's hint once named a trigger
// notify-test refused (issue 27 item 10).
func TestEveryHintedCommandRuns(t *testing.T) {
	isolate(t)
	t.Setenv("TMA_NOTIFY_CMD", "cat >/dev/null")
	for _, trigger := range notify.TestTriggers {
		hint := notify.TestCommand(trigger)
		args, ok := strings.CutPrefix(hint, "tma debug notify-test ")
		if !ok {
			t.Fatalf("hint %q is not a notify-test", hint)
		}
		var out, errs bytes.Buffer
		if code := Run(append([]string{"debug", "notify-test"}, strings.Fields(args)...), nil, &out, &errs); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", hint, code, out.String(), errs.String())
		}
		if !strings.Contains(out.String(), "\ncommand   cat >/dev/null\nexit      0\n") {
			t.Errorf("%s:\n%s", hint, out.String())
		}
	}
}

// A completion's test sends a completion's payload (its own schema-1
// contract) to the global command, never a trigger's routed one.
func TestCompletionTestSendsACompletion(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, "[notify]\ncommand = \"cat >"+dir+"/global\"\n[notify.blocked]\ncommand = \"cat >"+dir+"/blocked\"\n")
	var out, errs bytes.Buffer
	if code := Run([]string{"debug", "notify-test", "--trigger", "completion", "--config", cfg}, nil, &out, &errs); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
	}
	want := `{"schema":1,"action":"notify-test","pane":"%0","agent":"claude","outcome":"exited","exit_code":0,"locator":"main:1.0","lock_release_failed":false}`
	if !strings.HasPrefix(out.String(), "payload   "+want+"\ncommand   cat >"+dir+"/global\nexit      0\n") {
		t.Errorf("output:\n%s", out.String())
	}
	if got := readFile(t, filepath.Join(dir, "global")); got != want {
		t.Errorf("the command read %q", got)
	}
	// With no global command there is nothing a completion could run.
	writeFile(t, cfg, "[notify.blocked]\ncommand = \"true\"\n")
	out.Reset()
	errs.Reset()
	if code := Run([]string{"debug", "notify-test", "--trigger", "completion", "--config", cfg}, nil, &out, &errs); code != 1 ||
		!strings.Contains(errs.String(), "trigger completion resolves to no command\nhint: set [notify] command (a completion uses the global one)") {
		t.Errorf("no global command: exit %d\n%s%s", code, out.String(), errs.String())
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
