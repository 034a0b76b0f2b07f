package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/manifest"
	"github.com/tmaproject/tma/lib/testkit"
)

// TestRecheckSecs: a daemon whose pipeline does not notice its server's end
// (a stage holding no control client: the clientless case) learns of it
// from its own liveness recheck, every [daemon] zero_member_recheck_secs.
// The first recheck comes that long after the daemon loaded its config, so
// with 5 s a server killed right after the start is still unnoticed 2 s on,
// and with 1 s it is noticed by then.
func TestRecheckSecs(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := manifest.Load(manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, secs := range []int{1, 5} {
		t.Run(strconv.Itoa(secs), func(t *testing.T) {
			s := testkit.NewServer(t)
			pid, err := strconv.Atoi(strings.TrimSpace(s.MustRun("display", "-p", "#{pid}")))
			if err != nil {
				t.Fatal(err)
			}
			run := t.TempDir()
			_ = os.Chmod(run, 0o700)
			paths := daemon.ForEnv(s.Socket, func(k string) string {
				if k == "XDG_RUNTIME_DIR" {
					return run
				}
				return ""
			})
			log, logPath := testLog(t)
			defer func() {
				if t.Failed() {
					b, _ := os.ReadFile(logPath)
					t.Logf("log:\n%s", b)
				}
			}()
			cfgPath := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(cfgPath, []byte("[daemon]\nzero_member_recheck_secs = "+strconv.Itoa(secs)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				done <- Run(Options{Paths: paths, ServerPID: pid, Version: "9.8.7", Log: log,
					Load:       func() (*Loaded, error) { return &Loaded{ConfigPath: cfgPath, Manifests: ms}, nil },
					TmuxBin:    func(*config.Config) string { return s.Bin },
					Stages:     []Stage{{Name: "stub", Path: sleep, Args: []string{"3600"}}},
					RecordPath: filepath.Join(run, "none.toml")})
			}()
			for {
				if h, err := daemon.Ask(paths, 250*time.Millisecond); err == nil && h != nil {
					break
				}
				if time.Since(start) > 5*time.Second {
					t.Fatal("the daemon never answered")
				}
				time.Sleep(20 * time.Millisecond)
			}
			s.MustRun("kill-server")
			killed := time.Now()
			if secs == 1 {
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
				case <-time.After(2500 * time.Millisecond):
					t.Fatalf("with a 1 s recheck the daemon outlived its server by %s", time.Since(killed))
				}
				return
			}
			// The first recheck is 5 s after the start at the earliest; a
			// daemon rechecking every second would have ended by kill+1 s.
			if killed.Sub(start) > 3*time.Second {
				t.Fatalf("the daemon took %s to answer: the kill cannot come before its first recheck", killed.Sub(start))
			}
			select {
			case err := <-done:
				t.Fatalf("with a 5 s recheck the daemon ended %s after its server (%v): not on its recheck", time.Since(killed), err)
			case <-time.After(2 * time.Second):
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Until(start.Add(8 * time.Second))):
				t.Fatalf("with a 5 s recheck the daemon outlived its server by %s", time.Since(killed))
			}
		})
	}
}
