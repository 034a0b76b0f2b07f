package listcall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/tmux/spawn"
)

// fakeTmux writes a script standing in for tmux: it records its words one
// per line in dir/argv, prints body's stdout and exits with code.
func fakeTmux(t *testing.T, body string) (bin, argvFile string) {
	t.Helper()
	dir := t.TempDir()
	argvFile = filepath.Join(dir, "argv")
	bin = filepath.Join(dir, "tmux")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + argvFile + "\n" + body + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, argvFile
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The call started early is the one lib/tmux would make: -u, the server's
// flags, Args with the call's own nonce; and Wait hands over what it printed.
func TestPrestartRunsTheListCall(t *testing.T) {
	bin, argvFile := fakeTmux(t, "echo listed; echo warn >&2")
	home := t.TempDir()
	p := Prestart([]string{"-L", "work", "--no-capture"}, envOf(map[string]string{"TMA_TMUX_BIN": bin, "HOME": home}))
	if p == nil {
		t.Fatal("Prestart started nothing")
	}
	out, errs, err := p.Wait(context.Background(), time.Second)
	if err != nil || out != "listed\n" || errs != "warn\n" {
		t.Fatalf("Wait: %q %q %v", out, errs, err)
	}
	b, _ := os.ReadFile(argvFile)
	want := Argv([]string{"-L", "work"}, Args(p.Nonce))
	if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("argv:\n%q\nwant\n%q", got, want)
	}
	if len(p.Nonce) != 8 || p.Bin != bin || strings.Join(p.SocketArgs, " ") != "-L work" {
		t.Errorf("proc: %+v", p)
	}
}

func TestPrestartExitAndTimeout(t *testing.T) {
	home := t.TempDir()
	bin, _ := fakeTmux(t, "echo 'no server running on /x' >&2; exit 1")
	p := Prestart(nil, envOf(map[string]string{"TMA_TMUX_BIN": bin, "HOME": home}))
	_, errs, err := p.Wait(context.Background(), time.Second)
	var ee *spawn.ExitError
	if !errors.As(err, &ee) || ee.Status.ExitStatus() != 1 || !strings.Contains(errs, "no server running") {
		t.Errorf("a failed call: %q %v", errs, err)
	}
	// A call that never answers is killed when its context ends.
	bin, _ = fakeTmux(t, "exec sleep 30")
	p = Prestart(nil, envOf(map[string]string{"TMA_TMUX_BIN": bin, "HOME": home}))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, _, err := p.Wait(ctx, 100*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a hung call: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the hung call took %s to end", d)
	}
}

// Anything that is not surely the scan's call starts nothing: words kong
// must judge, a config that might name another binary, no binary at all.
func TestPrestartStartsNothingWhenUnsure(t *testing.T) {
	bin, _ := fakeTmux(t, "exit 0")
	home := t.TempDir()
	cfg := filepath.Join(home, ".config", "tma", "config.toml")
	for _, c := range []struct {
		name   string
		args   []string
		env    map[string]string
		config string // written to the home config when set
		start  bool
	}{
		{"plain", nil, nil, "", true},
		{"help", []string{"--help"}, nil, "", false},
		{"follow", []string{"--follow"}, nil, "", false},
		{"a stray word", []string{"stray"}, nil, "", false},
		{"a config without bin", nil, nil, "[fold]\nhook_decay_secs = 2\n", true},
		{"a config naming bin", nil, nil, "[tmux]\nbin = \"/opt/tmux\"\n", false},
		{"TMA_CONFIG naming bin", nil, map[string]string{"TMA_CONFIG": "/nonexistent/c.toml"}, "[tmux]\nbin = \"x\"\n", true},
		{"no such binary", nil, map[string]string{"TMA_TMUX_BIN": "/nonexistent/tmux"}, "", false},
		{"a name off PATH", nil, map[string]string{"TMA_TMUX_BIN": "tmux-nowhere", "PATH": "/nonexistent"}, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(filepath.Dir(cfg))
			if c.config != "" {
				os.MkdirAll(filepath.Dir(cfg), 0o755)
				if err := os.WriteFile(cfg, []byte(c.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"TMA_TMUX_BIN": bin, "HOME": home}
			for k, v := range c.env {
				env[k] = v
			}
			p := Prestart(c.args, envOf(env))
			if p != nil {
				p.End()
			}
			if (p != nil) != c.start {
				t.Errorf("started: %v, want %v", p != nil, c.start)
			}
		})
	}
}

// The config file prelist looks at is the one lib/config resolves.
func TestConfigMayNameBinReadsTheResolvedFile(t *testing.T) {
	root := t.TempDir()
	xdg, home := filepath.Join(root, "xdg"), filepath.Join(root, "home")
	xdgCfg, homeCfg := filepath.Join(xdg, "tma", "config.toml"), filepath.Join(home, ".config", "tma", "config.toml")
	for _, c := range []struct {
		name       string
		flag       string
		env        map[string]string
		xdg, home  string // contents; "" is absent
		mayNameBin bool
	}{
		{"none", "", nil, "", "", false},
		{"home names bin", "", nil, "", "bin = 1", true},
		{"xdg first", "", map[string]string{"XDG_CONFIG_HOME": xdg}, "x = 1", "bin = 1", false},
		{"xdg names bin", "", map[string]string{"XDG_CONFIG_HOME": xdg}, "bin = 1", "x = 1", true},
		{"relative xdg is ignored", "", map[string]string{"XDG_CONFIG_HOME": "rel"}, "", "bin = 1", true},
		{"flag wins", xdgCfg, nil, "x = 1", "bin = 1", false},
		{"TMA_CONFIG wins", "", map[string]string{"TMA_CONFIG": homeCfg, "XDG_CONFIG_HOME": xdg}, "x = 1", "bin = 1", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(root)
			for p, body := range map[string]string{xdgCfg: c.xdg, homeCfg: c.home} {
				if body != "" {
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.WriteFile(p, []byte(body), 0o644)
				}
			}
			env := map[string]string{"HOME": home}
			for k, v := range c.env {
				env[k] = v
			}
			if got := configMayNameBin(c.flag, envOf(env)); got != c.mayNameBin {
				t.Errorf("configMayNameBin: %v, want %v", got, c.mayNameBin)
			}
			resolved, _ := config.Resolve(c.flag, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, home)
			b, _ := os.ReadFile(resolved)
			if want := strings.Contains(string(b), "bin"); want != c.mayNameBin {
				t.Errorf("lib/config resolves %q, which %s bin", resolved, map[bool]string{true: "names", false: "does not name"}[want])
			}
		})
	}
}

// A hook's write client: started only inside a pane and with no daemon
// socket for the server; the lines reach its stdin at Finish.
func TestPrestartBatch(t *testing.T) {
	dir := t.TempDir()
	stdinFile := filepath.Join(dir, "stdin")
	bin, argvFile := fakeTmux(t, "cat > "+stdinFile+"; echo done")
	sock := filepath.Join(dir, "daemon.sock")
	daemonSocket := func(name, path string) string {
		if name != "work" || path != "" {
			t.Errorf("daemonSocket(%q, %q): not the server the words name", name, path)
		}
		return sock
	}
	env := map[string]string{"TMA_TMUX_BIN": bin, "HOME": dir, "TMUX_PANE": "%3"}
	args := []string{"-L", "work", "claude", "Stop"}

	p := PrestartBatch(args, envOf(env), daemonSocket)
	if p == nil {
		t.Fatal("PrestartBatch started nothing")
	}
	out, _, err := p.Finish(context.Background(), "set -p @x 1\n", time.Second)
	if err != nil || out != "done\n" {
		t.Fatalf("Finish: %q %v", out, err)
	}
	if b, _ := os.ReadFile(stdinFile); string(b) != "set -p @x 1\n" {
		t.Errorf("the batch read %q", b)
	}
	if b, _ := os.ReadFile(argvFile); string(b) != "-u\n-L\nwork\nsource-file\n-\n" {
		t.Errorf("argv %q", b)
	}

	// An unused batch runs nothing: ended, or finished with no lines.
	os.Remove(stdinFile)
	p = PrestartBatch(args, envOf(env), daemonSocket)
	p.End()
	if b, _ := os.ReadFile(stdinFile); len(b) != 0 {
		t.Errorf("an ended batch read %q", b)
	}
	p = PrestartBatch(args, envOf(env), daemonSocket)
	if _, _, err := p.Finish(context.Background(), "", time.Second); err != nil {
		t.Errorf("an empty Finish: %v", err)
	}
	if b, err := os.ReadFile(stdinFile); err != nil || len(b) != 0 {
		t.Errorf("an empty batch read %q (%v)", b, err)
	}

	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if p := PrestartBatch(args, envOf(env), daemonSocket); p != nil {
		p.End()
		t.Error("a batch was started beside a running daemon")
	}
	os.Remove(sock)
	env["TMUX_PANE"] = ""
	if p := PrestartBatch(args, envOf(env), daemonSocket); p != nil {
		p.End()
		t.Error("a batch was started outside a pane")
	}
}
