package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkRemote times `tma ls --host all` with one [[remote]] over a
// real sshd on 127.0.0.1 against `tma ls` local, both servers holding 10
// fake claude agents: a fresh ssh connection per run, and a reused one
// (ssh's ControlMaster/ControlPersist, the way a user reuses connections
// today). It reports; it asserts only that the rows arrive.
func BenchmarkRemote(b *testing.B) {
	h := newFarHost(b)
	sshd, k, near := h.sshd, h.key, agentServer(b)
	nearHome, nearRun := b.TempDir(), b.TempDir()
	tma := func(home, run string, args ...string) *exec.Cmd { return h.tma(home, run, nil, args...) }
	argv := func(a []string) string {
		j, _ := json.Marshal(a)
		return string(j)
	}
	fresh := sshd.SSH(k)
	cm := filepath.Join(b.TempDir(), "cm-%C")
	reused := append([]string{fresh[0], fresh[1], "-o", "ControlMaster=auto", "-o", "ControlPath=" + cm, "-o", "ControlPersist=120"}, fresh[2:]...)
	b.Cleanup(func() {
		// The master outlives sshd's listener; -O exit with the same
		// options (ControlPath expands %C from them) ends it.
		a := append(append([]string{}, reused[1:len(reused)-1]...), "-O", "exit", reused[len(reused)-1])
		_ = exec.Command(reused[0], a...).Run()
	})
	cfgDir := filepath.Join(nearHome, ".config", "tma")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		b.Fatal(err)
	}
	cfg := fmt.Sprintf("[[remote]]\nname = \"fresh\"\ncommand = %s\ntimeout_ms = 10000\n\n[[remote]]\nname = \"reused\"\ncommand = %s\ntimeout_ms = 10000\n", argv(fresh), argv(reused))
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	rows := func(args ...string) (time.Duration, int) {
		c := tma(nearHome, nearRun, append([]string{"-S", near.Socket, "ls", "--json"}, args...)...)
		start := time.Now()
		out, err := c.Output()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("tma ls %v: %v", args, err)
		}
		var doc struct {
			Agents []json.RawMessage `json:"agents"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return d, len(doc.Agents)
	}
	// Warm both servers (first cycles capture everything) and the master.
	for _, args := range [][]string{nil, {"--host", "all"}} {
		for range 3 {
			rows(args...)
		}
	}
	cases := []struct {
		what string
		args []string
		want int
	}{
		{"tma ls --json (local)", nil, 10},
		{"tma ls --json --host fresh (a new ssh connection)", []string{"--host", "fresh"}, 10},
		{"tma ls --json --host reused (ControlMaster)", []string{"--host", "reused"}, 10},
		{"tma ls --json --host <local>,reused", []string{"--host", hostname(b) + ",reused"}, 20},
		{"tma ls --json --host all (local, fresh, reused)", []string{"--host", "all"}, 30},
	}
	n := max(b.N, 10)
	fmt.Printf("\n## Remote (%d runs each; 10 agents per server; sshd on 127.0.0.1; loadavg %s)\n\n| command | median ms | min ms |\n|---|---|---|\n", n, loadavg())
	for _, c := range cases {
		var ds []time.Duration
		for range n {
			d, got := rows(c.args...)
			if got != c.want {
				b.Fatalf("%s: %d rows, want %d", c.what, got, c.want)
			}
			ds = append(ds, d)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Printf("| %s | %.1f | %.1f |\n", c.what, ms(ds[len(ds)/2]), ms(ds[0]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func hostname(b *testing.B) string {
	h, err := os.Hostname()
	if err != nil || strings.TrimSpace(h) == "" {
		b.Fatal("no hostname")
	}
	return h
}
