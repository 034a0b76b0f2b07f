package integration

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// The remote host of these tests is an env (its own tmux server, HOME and
// runtime directory); the device dials it through a private sshd on
// 127.0.0.1 whose authorized_keys line forces `tma serve`, exactly as the
// manual's recipe writes it, plus the environment that keeps the forced
// command inside the test's sandbox.

// forced is the authorized_keys line for key on the remote env: `restrict`
// and a forced command that runs the dispatcher's `tma serve`.
func (e *env) forced(k testkit.Key, device string) string {
	return e.forcedBin(k, device, os.Getenv("TMA_TMUX_BIN"))
}

// forcedBin is forced with the serve's tmux binary (TMA_TMUX_BIN) given.
func (e *env) forcedBin(k testkit.Key, device, bin string) string {
	vars := []string{"HOME=" + e.home, "XDG_RUNTIME_DIR=" + e.run, "PATH=" + binDir + ":" + os.Getenv("PATH")}
	if b := bin; b != "" {
		vars = append(vars, "TMA_TMUX_BIN="+b)
	}
	cmd := "env " + strings.Join(vars, " ") + " sh " + filepath.Join(binDir, "tma") + " -S " + e.s.Socket + " serve --stdio --device " + device
	return fmt.Sprintf("command=\"%s\",restrict %s", cmd, k.Public)
}

// device runs `tma device` on the remote env.
func (e *env) device(args ...string) string {
	e.t.Helper()
	out, errs, code := e.tma(append([]string{"device"}, args...)...)
	if code != 0 {
		e.t.Fatalf("tma device %v: exit %d %s", args, code, errs)
	}
	return out
}

// dial is one ssh connection speaking frames.
type dial struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	frames chan map[string]any
	stderr *strings.Builder
	done   chan struct{}
	code   int
}

func dialSSH(t *testing.T, argv []string) *dial {
	t.Helper()
	d := &dial{t: t, cmd: exec.Command(argv[0], argv[1:]...), frames: make(chan map[string]any, 64), stderr: &strings.Builder{}, done: make(chan struct{})}
	d.cmd.Stderr = d.stderr
	var err error
	if d.in, err = d.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<22)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"_bad": sc.Text()}
			}
			m["_raw"] = sc.Text()
			d.frames <- m
		}
		close(d.frames)
		err := d.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			d.code = ee.ExitCode()
		} else if err != nil {
			d.code = -1
		}
		close(d.done)
	}()
	t.Cleanup(func() {
		d.in.Close()
		select {
		case <-d.done:
		case <-time.After(10 * time.Second):
			_ = d.cmd.Process.Kill()
			<-d.done
		}
	})
	return d
}

func (d *dial) send(frame string) {
	d.t.Helper()
	if _, err := io.WriteString(d.in, frame+"\n"); err != nil {
		d.t.Fatalf("send %s: %v", frame, err)
	}
}

func (d *dial) next() map[string]any {
	d.t.Helper()
	select {
	case f, ok := <-d.frames:
		if !ok {
			d.t.Fatalf("the connection ended (exit %d): %s", d.wait(), d.stderr.String())
		}
		if f["_bad"] != nil {
			d.t.Fatalf("a line that is not a frame: %q", f["_bad"])
		}
		return f
	case <-time.After(30 * time.Second):
		d.t.Fatalf("no frame in 30s; stderr: %s", d.stderr.String())
	}
	return nil
}

// wait returns the exit status of ssh, which is the remote command's.
func (d *dial) wait() int {
	d.t.Helper()
	select {
	case <-d.done:
		return d.code
	case <-time.After(30 * time.Second):
		d.t.Fatal("the connection did not end in 30s")
	}
	return -1
}

const helloFrame = `{"schema":1,"id":"1","t":"hello","app":"probe","app_version":"0","device":"whatever-the-client-claims"}`

// An unpaired key gets one scope-denied frame with id 0 and exit 2; a
// paired one gets the hello with its scopes and the host's interval.
func TestServeOverSSHPairingAndHello(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	e := newEnv(t, "")
	k := sshd.NewKey("phone")
	sshd.Authorize(e.forced(k, k.Fingerprint))

	d := dialSSH(t, sshd.SSH(k))
	d.send(helloFrame)
	f := d.next()
	want := `{"schema":1,"id":"0","t":"error","code":"scope-denied","message":"this device is not paired with this host; run ` + "`tma device pair`" + ` on the host"}`
	if f["_raw"] != want {
		t.Errorf("unpaired:\n got %s\nwant %s", f["_raw"], want)
	}
	if c := d.wait(); c != 2 {
		t.Errorf("unpaired exit %d, want 2", c)
	}

	out := e.device("pair", "phone", "--id", k.Fingerprint)
	if !strings.HasPrefix(out, "paired "+k.Fingerprint+" as phone\n  scopes: read, act:answer, act:steer\n") {
		t.Errorf("pair printed %q", out)
	}
	d = dialSSH(t, sshd.SSH(k))
	d.send(helloFrame)
	f = d.next()
	host, _ := os.Hostname()
	want = fmt.Sprintf(`{"schema":1,"id":"1","t":"hello","host":%q,"tma_version":"%s","reconcile_interval_ms":2000,"scopes":["read","act:answer","act:steer"]}`, host, f["tma_version"])
	if f["_raw"] != want {
		t.Errorf("hello:\n got %s\nwant %s", f["_raw"], want)
	}
	d.in.Close()
	if c := d.wait(); c != 0 {
		t.Errorf("EOF exit %d, want 0; %s", c, d.stderr.String())
	}
	// Only frames on stdout: ssh's stderr carries serve's log lines.
	if !strings.Contains(d.stderr.String(), "tma serve: device phone ("+k.Fingerprint+") connected") {
		t.Errorf("no log line on stderr: %q", d.stderr.String())
	}
}

// A snapshot carries the remote's rows without titles; a dispatch within
// the scopes reaches the pane through the broker with a receipt, one beyond
// them (or outside the table) is refused before anything is sent.
func TestServeOverSSHSnapshotAndScopes(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	e := newEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	phone, tablet := sshd.NewKey("phone"), sshd.NewKey("tablet")
	sshd.Authorize(e.forced(phone, phone.Fingerprint), e.forced(tablet, tablet.Fingerprint))
	e.device("pair", "phone", "--id", phone.Fingerprint)
	e.device("pair", "tablet", "--id", tablet.Fingerprint, "--only")

	d := dialSSH(t, sshd.SSH(tablet))
	d.send(helloFrame)
	if f := d.next(); fmt.Sprint(f["scopes"]) != "[read]" {
		t.Fatalf("tablet hello %s", f["_raw"])
	}
	d.send(`{"schema":1,"id":"2","t":"snapshot"}`)
	f := d.next()
	raw := f["_raw"].(string)
	if f["t"] != "snapshot" || f["server"] != e.s.Socket || strings.Contains(raw, `"title"`) {
		t.Fatalf("snapshot %s", raw)
	}
	rows := f["rows"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["pane"] != a.Pane || rows[0].(map[string]any)["state"] != "blocked" {
		t.Fatalf("snapshot rows %s", raw)
	}
	for _, action := range []string{"approve", "compact", "steer"} {
		d.send(fmt.Sprintf(`{"schema":1,"id":"3","t":"dispatch","action":%q,"pane":%q,"slot":"tab-%s"}`, action, a.Pane, action))
		if f := d.next(); f["t"] != "receipt" || f["outcome"] != "refused" || f["reason"] != "scope-denied" || f["device"] != "tablet" {
			t.Errorf("tablet %s: %s", action, f["_raw"])
		}
	}
	e.nothingSent(in)
	// Refused before the slot: the ledger has no receipt for it.
	d.send(`{"schema":1,"id":"4","t":"receipts","slot":"tab-approve"}`)
	if f := d.next(); f["t"] != "receipts" || fmt.Sprint(f["receipts"]) != "[]" {
		t.Errorf("receipts after a refusal: %s", f["_raw"])
	}
	d.in.Close()
	d.wait()

	p := dialSSH(t, sshd.SSH(phone))
	p.send(helloFrame)
	p.next()
	p.send(fmt.Sprintf(`{"schema":1,"id":"5","t":"dispatch","action":"compact","pane":%q}`, a.Pane))
	if f := p.next(); f["outcome"] != "refused" || f["reason"] != "scope-denied" {
		t.Errorf("phone compact: %s", f["_raw"])
	}
	p.send(fmt.Sprintf(`{"schema":1,"id":"6","t":"dispatch","action":"approve","pane":%q,"slot":"ph-1"}`, a.Pane))
	f = p.next()
	if f["t"] != "receipt" || f["outcome"] != "sent" || f["exit_code"] != float64(0) || f["slot"] != "ph-1" || f["cached"] != false {
		t.Fatalf("phone approve: %s; %s", f["_raw"], p.stderr.String())
	}
	e.waitSent(in, "1")
	// The same slot again: the ledger's receipt, nothing sent.
	p.send(fmt.Sprintf(`{"schema":1,"id":"7","t":"dispatch","action":"approve","pane":%q,"slot":"ph-1"}`, a.Pane))
	if f := p.next(); f["outcome"] != "sent" || f["cached"] != true {
		t.Errorf("replayed slot: %s", f["_raw"])
	}
	p.send(`{"schema":1,"id":"8","t":"receipts","slot":"ph-1"}`)
	f = p.next()
	if rs, _ := f["receipts"].([]any); len(rs) != 1 || rs[0].(map[string]any)["device"] != "phone" {
		t.Errorf("receipts: %s", f["_raw"])
	}
	e.waitSent(in, "1")
}

// Revoking on the host ends a subscribed connection that never hangs up:
// one scope-denied frame and exit 2, within the reconcile interval.
func TestServeOverSSHRevokeMidConnection(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	e := newEnv(t, "[serve]\nreconcile_interval_ms = 200\n")
	e.s.StartAgent("claude", claudeWorking)
	k := sshd.NewKey("phone")
	sshd.Authorize(e.forced(k, k.Fingerprint))
	e.device("pair", "phone", "--id", k.Fingerprint)

	d := dialSSH(t, sshd.SSH(k))
	d.send(helloFrame)
	if f := d.next(); f["reconcile_interval_ms"] != float64(200) {
		t.Fatalf("hello %s", f["_raw"])
	}
	d.send(`{"schema":1,"id":"s","t":"subscribe"}`)
	if f := d.next(); f["t"] != "ack" {
		t.Fatalf("subscribe %s", f["_raw"])
	}
	out := e.device("revoke", "phone")
	if !strings.Contains(out, "remove its `command=\"tma serve --stdio --device "+k.Fingerprint+"\"` line from") {
		t.Errorf("revoke printed %q", out)
	}
	for {
		f := d.next()
		if f["t"] == "edge" {
			continue
		}
		if f["t"] != "error" || f["code"] != "scope-denied" {
			t.Fatalf("after revoke: %s", f["_raw"])
		}
		break
	}
	if c := d.wait(); c != 2 {
		t.Errorf("revoked exit %d, want 2", c)
	}
}

// [serve] max_connections: the dial beyond it gets a typed
// too-many-connections frame and exit 2; a slot frees when its connection
// ends.
func TestServeOverSSHMaxConnections(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	e := newEnv(t, "[serve]\nmax_connections = 1\n")
	k := sshd.NewKey("phone")
	sshd.Authorize(e.forced(k, k.Fingerprint))
	e.device("pair", "phone", "--id", k.Fingerprint)

	first := dialSSH(t, sshd.SSH(k))
	first.send(helloFrame)
	first.next()
	second := dialSSH(t, sshd.SSH(k))
	second.send(helloFrame)
	f := second.next()
	if f["t"] != "error" || f["code"] != "too-many-connections" || f["id"] != "0" {
		t.Errorf("second connection: %s", f["_raw"])
	}
	if c := second.wait(); c != 2 {
		t.Errorf("refused exit %d, want 2", c)
	}
	first.in.Close()
	if c := first.wait(); c != 0 {
		t.Errorf("first exit %d", c)
	}
	third := dialSSH(t, sshd.SSH(k))
	third.send(helloFrame)
	if f := third.next(); f["t"] != "hello" {
		t.Errorf("after the first ended: %s", f["_raw"])
	}
}

// A window frame serves a pane's transcript page (the tma transcript
// document) to a read-scoped device; a pane with no agent is not-found.
func TestServeOverSSHWindow(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	e := newEnv(t, "")
	pane := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", "s:", "#{pane_id}"))
	path := filepath.Join(e.home, ".claude", "projects", "-tmp-lab-project", "7e438f55-8363-469e-b23d-3921c641f85b.jsonl")
	copyFixture(t, "claude/7e438f55-8363-469e-b23d-3921c641f85b.jsonl", path)
	e.s.MustRun("set-option", "-p", "-t", pane, "@agent_name", "claude")
	e.s.MustRun("set-option", "-p", "-t", pane, "@agent_transcript", path)
	e.s.MustRun("split-window", "-d", "-t", "s:", "sh")
	bare := strings.TrimSpace(e.s.MustRun("display", "-p", "-t", "s:0.1", "#{pane_id}"))
	k := sshd.NewKey("tablet")
	sshd.Authorize(e.forced(k, k.Fingerprint))
	e.device("pair", "tablet", "--id", k.Fingerprint, "--only")

	d := dialSSH(t, sshd.SSH(k))
	d.send(helloFrame)
	d.next()
	d.send(fmt.Sprintf(`{"schema":1,"id":"w","t":"window","pane":%q,"last":3}`, pane))
	f := d.next()
	doc, _ := f["document"].(map[string]any)
	if f["t"] != "window" || doc == nil || doc["pane"] != pane || doc["agent"] != "claude" || len(doc["events"].([]any)) != 3 || doc["older"] == nil {
		t.Fatalf("window: %s", f["_raw"])
	}
	if len(f["_raw"].(string)) >= 32<<10 {
		t.Errorf("a window frame of %d bytes", len(f["_raw"].(string)))
	}
	d.send(fmt.Sprintf(`{"schema":1,"id":"x","t":"window","pane":%q,"last":3,"before":%q}`, pane, doc["older"]))
	if g := d.next(); g["t"] != "window" || g["_raw"] == f["_raw"] {
		t.Errorf("the page before: %s", g["_raw"])
	}
	d.send(fmt.Sprintf(`{"schema":1,"id":"y","t":"window","pane":%q}`, bare))
	if g := d.next(); g["t"] != "error" || g["code"] != "not-found" || !strings.HasPrefix(g["message"].(string), "no-transcript: ") {
		t.Errorf("a pane with no agent: %s", g["_raw"])
	}
}
