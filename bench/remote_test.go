package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// BenchmarkRemote times `tma ls --host all` with one [[remote]] over a
// real sshd on 127.0.0.1 against `tma ls` local, both servers holding 10
// fake claude agents: a fresh ssh connection per run, and a reused one
// (ssh's ControlMaster/ControlPersist, the way a user reuses connections
// today). It reports; it asserts only that the rows arrive.
func BenchmarkRemote(b *testing.B) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	bin := b.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	sh, err := os.ReadFile(filepath.Join(root, "shell", "tma"))
	if err == nil {
		err = os.WriteFile(filepath.Join(bin, "tma"), sh, 0o755)
	}
	if err != nil {
		b.Fatal(err)
	}
	agentBin, screen := fakeClaude(b)
	far, near := testkit.NewServer(b), testkit.NewServer(b)
	for _, s := range []*testkit.Server{far, near} {
		for range 10 {
			s.MustRun("new-window", "-d", "-t", "s:", agentBin, screen)
		}
	}
	farHome, farRun, nearHome, nearRun := b.TempDir(), b.TempDir(), b.TempDir(), b.TempDir()
	sshd := testkit.NewSSHD(b)
	k := sshd.NewKey("laptop")
	vars := "HOME=" + farHome + " XDG_RUNTIME_DIR=" + farRun + " PATH=" + bin + ":" + os.Getenv("PATH")
	if t := os.Getenv("TMA_TMUX_BIN"); t != "" {
		vars += " TMA_TMUX_BIN=" + t
	}
	sshd.Authorize(fmt.Sprintf(`command="env %s sh %s/tma -S %s serve --stdio --device %s",restrict %s`, vars, bin, far.Socket, k.Fingerprint, k.Public))
	tma := func(home, run string, args ...string) *exec.Cmd {
		c := exec.Command("sh", append([]string{filepath.Join(bin, "tma")}, args...)...)
		c.Env = append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=")
		return c
	}
	if out, err := tma(farHome, farRun, "device", "pair", "laptop", "--id", k.Fingerprint, "--only").CombinedOutput(); err != nil {
		b.Fatalf("pair: %v %s", err, out)
	}
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
