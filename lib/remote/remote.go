package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
)

// Result is one remote's answer.
type Result struct {
	Name string
	// Host is the name the host's hello gave, Server its tmux server.
	Host, Server string
	Rows         []record.AgentRow
	// Panes is every pane id on the host's server, agent or not.
	Panes []string
	Err   error
}

// App is the hello's app field.
const App = "tma"

type frame struct {
	ID      string            `json:"id"`
	T       string            `json:"t"`
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Host    string            `json:"host"`
	Server  string            `json:"server"`
	Rows    []json.RawMessage `json:"rows"`
	Panes   []string          `json:"panes"`
}

// Snapshot dials r once and returns its rows. Each row's host is the
// remote's name, the label its rows and selectors use; server stays the
// remote tmux server's socket path, so (host, server, pane) keys it.
func Snapshot(ctx context.Context, r config.Remote, version string) Result {
	res := Result{Name: r.Name}
	err := exchange(ctx, r, r.Timeout(), version, `{"schema":1,"id":"2","t":"snapshot"}`, func(out io.Reader) error {
		res = read(out, res)
		return res.Err
	})
	res.Err = err
	return res
}

// exchange runs r's command, sends the hello and one request, and lets
// answer read the frames; all of it within timeout. The command runs in a
// process group of its own, so the deadline reaches whatever it started
// (ssh's proxies, a wrapper script's children).
func exchange(ctx context.Context, r config.Remote, timeout time.Duration, version, request string, answer func(io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(r.Command[0], r.Command[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = nil // a remote's own chatter is not this surface's to print
	cmd.WaitDelay = 100 * time.Millisecond
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var once sync.Once
	kill := func() { once.Do(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }) }
	stop := context.AfterFunc(ctx, kill)
	defer stop()

	hello, _ := json.Marshal(map[string]any{"schema": 1, "id": "1", "t": "hello", "app": App, "app_version": version, "device": ""})
	go func() {
		_, _ = io.WriteString(in, string(hello)+"\n"+request+"\n")
	}()
	got := make(chan error, 1)
	go func() { got <- answer(out) }()
	answered := false
	select {
	case err = <-got:
		answered = true
	case <-ctx.Done():
		kill()
		err = &TimeoutError{timeout}
	}
	in.Close()
	// The connection is done with either way: a remote that lingers after
	// its answer is not waited on beyond the deadline.
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		kill()
		<-waited
	}
	if !answered {
		// Wait closed the pipe, so answer returns now; the caller's
		// result is not written behind its back after this returns.
		<-got
	}
	return err
}

// read takes frames until the snapshot answers, or an error frame or the
// end of the stream says why not.
func read(out io.Reader, res Result) Result {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	for sc.Scan() {
		var f frame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			res.Err = fmt.Errorf("not a serve frame: %s", clip(sc.Text()))
			return res
		}
		switch {
		case f.T == "error":
			res.Err = &RefusedError{f.Code, f.Message}
			return res
		case f.T == "hello" && f.ID == "1":
			res.Host = f.Host
		case f.T == "snapshot" && f.ID == "2":
			res.Server, res.Panes = f.Server, f.Panes
			for _, raw := range f.Rows {
				var row record.AgentRow
				if err := json.Unmarshal(raw, &row); err != nil {
					res.Err = fmt.Errorf("a row that does not decode: %v", err)
					return res
				}
				row.Host = res.Name
				res.Rows = append(res.Rows, row)
			}
			if res.Rows == nil {
				res.Rows = []record.AgentRow{}
			}
			return res
		}
	}
	if err := sc.Err(); err != nil {
		res.Err = err
	} else {
		res.Err = fmt.Errorf("%w before a snapshot", errEnded)
	}
	return res
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// SnapshotAll dials every remote at once; the results keep their order.
func SnapshotAll(ctx context.Context, rs []config.Remote, version string) []Result {
	out := make([]Result, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = Snapshot(ctx, r, version)
		}()
	}
	wg.Wait()
	return out
}

// Row is a remote row in the shape the local surfaces select and sort: its
// tmux session, window and index read back from the locator
// (session:window.index).
func Row(r record.AgentRow) *record.Row {
	row := &record.Row{Row: r}
	loc := r.Locator
	if i := strings.LastIndexByte(loc, ':'); i >= 0 {
		row.TmuxSession = loc[:i]
		wi := loc[i+1:]
		if j := strings.IndexByte(wi, '.'); j >= 0 {
			row.Window, _ = strconv.Atoi(wi[:j])
			row.Index, _ = strconv.Atoi(wi[j+1:])
		}
	}
	return row
}

// Hosts resolves --host words against the config: "all" is this host and
// every remote; a remote's name is that remote; local (this host's name) is
// the local server. It reports whether the local rows are wanted.
func Hosts(words []string, cfg *config.Config, local string) (remotes []config.Remote, withLocal bool, err error) {
	want := map[string]bool{}
	for _, w := range words {
		for _, p := range strings.Split(w, ",") {
			switch {
			case p == "all":
				withLocal = true
				for _, r := range cfg.Remotes {
					want[r.Name] = true
				}
			case p == local:
				withLocal = true
			case cfg.Remote(p) != nil:
				want[p] = true
			default:
				names := []string{"all", local}
				for _, r := range cfg.Remotes {
					names = append(names, r.Name)
				}
				return nil, false, fmt.Errorf("unknown host %q (--host takes %s)", p, strings.Join(names, ", "))
			}
		}
	}
	for _, r := range cfg.Remotes {
		if want[r.Name] {
			remotes = append(remotes, r)
		}
	}
	return remotes, withLocal, nil
}
