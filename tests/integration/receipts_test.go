package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

type slotResult struct {
	actResult
	Cached *bool `json:"cached"`
}

// slotJSON fires with --json and a slot, and decodes the result, whose
// keys must end in cached.
func (e *env) slotJSON(args ...string) (slotResult, string, int) {
	e.t.Helper()
	out, errs, code := e.tma(append([]string{"act", "--json"}, args...)...)
	var r slotResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("tma act %v: exit %d, not a result object: %q (stderr %s)", args, code, out, errs)
	}
	if k := testkit.KeyOrder(e.t, out); k != "schema action pane outcome exit_code reason cached" {
		e.t.Errorf("slotted result keys: %s", k)
	}
	if r.Cached == nil {
		e.t.Fatalf("no cached key: %s", out)
	}
	if r.ExitCode != code {
		e.t.Errorf("exit_code %d but the process exited %d", r.ExitCode, code)
	}
	return r, errs, code
}

func (e *env) ledger() string { return filepath.Join(e.run, "tma", "receipts.jsonl") }

// TestActSlotDispatchesOnce: a slotted approve fires once; the same slot
// again replays the first receipt (cached, same code, nothing sent), in
// text and JSON, whatever action it names; a refusal's receipt replays its
// exit code; a dry run claims nothing; tma receipts lists what happened.
func TestActSlotDispatchesOnce(t *testing.T) {
	log := filepath.Join(t.TempDir(), "acts.jsonl")
	e := newEnv(t, "[act]\nlog = \""+log+"\"\n")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	slot := "approve:" + a.Pane + ":1"

	r, errs, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", slot, "--device", "phone")
	if code != 0 || r.Outcome != "sent" || *r.Cached {
		t.Fatalf("first fire: exit %d %+v %s", code, r, errs)
	}
	e.waitSent(in, "1")
	r, errs, code = e.slotJSON("approve", "--pane", a.Pane, "--slot", slot, "--device", "phone")
	if code != 0 || r.Outcome != "sent" || !*r.Cached || r.Pane != a.Pane || r.Action != "approve" || r.Reason != nil {
		t.Fatalf("replay: exit %d %+v %s", code, r, errs)
	}
	_, errs, code = e.tma("act", "approve", "--pane", a.Pane, "--slot", slot)
	if code != 0 || !strings.Contains(errs, "tma: cached receipt for slot "+slot+": approve on "+a.Pane+": sent") {
		t.Errorf("text replay: exit %d %q", code, errs)
	}
	// The id is the whole identity: another action on the slot gets the
	// first dispatch's receipt.
	if r, _, code = e.slotJSON("deny", "--pane", a.Pane, "--slot", slot); code != 0 || r.Action != "approve" || !*r.Cached {
		t.Errorf("deny on approve's slot: exit %d %+v", code, r)
	}
	time.Sleep(200 * time.Millisecond) // give a stray key time to land
	if got := sent(t, in); got != "1" {
		t.Fatalf("the agent received %q, want the one approve", got)
	}

	// A refusal is a terminal receipt too: its code replays.
	gated := "interrupt:" + a.Pane + ":1"
	if r, _, code = e.slotJSON("interrupt", "--pane", a.Pane, "--slot", gated); code != 4 || r.reason() != "gated" || *r.Cached {
		t.Errorf("gated: exit %d %+v", code, r)
	}
	if r, _, code = e.slotJSON("interrupt", "--pane", a.Pane, "--slot", gated); code != 4 || r.reason() != "gated" || !*r.Cached {
		t.Errorf("gated replay: exit %d %+v", code, r)
	}
	// A dry run claims no slot; a plain fire (no --slot) has no cached key.
	if _, _, code = e.tma("act", "deny", "--pane", a.Pane, "--slot", "dry", "--dry-run"); code != 0 {
		t.Errorf("dry run: exit %d", code)
	}
	if out, _, _ := e.tma("receipts", "--slot", "dry", "--json"); out != "{\"schema\":1,\"receipts\":[]}\n" {
		t.Errorf("a dry run claimed its slot: %s", out)
	}

	out, errs, code := e.tma("receipts")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("receipts: exit %d %q %s", code, out, errs)
	}
	f := strings.Split(lines[0], "\t")
	if len(f) != 8 || strings.Join(f[1:], " ") != slot+" "+a.Pane+" approve sent - 0 phone" {
		t.Errorf("first receipt line: %q", lines[0])
	}
	if at, err := strconv.ParseInt(f[0], 10, 64); err != nil || time.Since(time.UnixMilli(at)) > time.Minute {
		t.Errorf("at_ms %q", f[0])
	}
	if g := strings.Split(lines[1], "\t"); strings.Join(g[1:], " ") != gated+" "+a.Pane+" interrupt refused gated 4 -" {
		t.Errorf("second receipt line: %q", lines[1])
	}
	out, _, code = e.tma("receipts", "--json", "--slot", slot)
	var doc struct {
		Receipts []json.RawMessage `json:"receipts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Receipts) != 1 {
		t.Fatalf("receipts --json: exit %d %v %s", code, err, out)
	}
	if k := testkit.KeyOrder(t, out); k != "schema receipts" {
		t.Errorf("document keys: %s", k)
	}
	if k := testkit.KeyOrder(t, string(doc.Receipts[0])); k != "slot pane action device at_ms outcome exit_code reason" {
		t.Errorf("receipt keys: %s", k)
	}
	if !strings.Contains(string(doc.Receipts[0]), `"device":"phone"`) {
		t.Errorf("receipt: %s", doc.Receipts[0])
	}
	if st, err := os.Stat(e.ledger()); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("ledger: %v", err)
	}
	// The act log has the two fires (with the device), not the replays.
	audit := strings.Split(strings.TrimSpace(read(t, log)), "\n")
	if len(audit) != 2 || !strings.Contains(audit[0], `"device":"phone","action":"approve"`) || !strings.Contains(audit[1], `"device":null,"action":"interrupt"`) {
		t.Errorf("act log:\n%s", strings.Join(audit, "\n"))
	}
}

// TestActSlotConcurrentFiresOnce: three processes dispatch one slot at the
// same moment; the agent receives the key once, one result is the fire and
// the others its cached receipt, all exit 0.
func TestActSlotConcurrentFiresOnce(t *testing.T) {
	e := newEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")

	const n = 3
	var wg sync.WaitGroup
	start := make(chan struct{})
	outs := make([]string, n)
	codes := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command("dash", filepath.Join(binDir, "tma"), "-L", e.s.Name, "act", "approve", "--pane", a.Pane, "--slot", "race", "--json")
			cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "XDG_CONFIG_HOME=", "TMA_CONFIG=", "TMUX=", "TMA_SOCKET_PATH=", "PATH="+binDir+":"+os.Getenv("PATH"))
			<-start
			out, err := cmd.Output()
			outs[i] = string(out)
			if ee, ok := err.(*exec.ExitError); ok {
				codes[i] = ee.ExitCode()
			} else if err != nil {
				codes[i] = -1
			}
		}(i)
	}
	close(start)
	wg.Wait()
	fired := 0
	for i := range outs {
		if codes[i] != 0 || !strings.Contains(outs[i], `"outcome":"sent"`) {
			t.Errorf("process %d: exit %d %s", i, codes[i], outs[i])
		}
		if strings.Contains(outs[i], `"cached":false`) {
			fired++
		}
	}
	if fired != 1 {
		t.Errorf("%d processes fired, want 1:\n%s", fired, strings.Join(outs, ""))
	}
	e.waitSent(in, "1")
	time.Sleep(300 * time.Millisecond)
	if got := sent(t, in); got != "1" {
		t.Fatalf("the agent received %q, want exactly one approve", got)
	}
}

// TestActSlotLockedRefusalReleases: a locked refusal (exit 5) frees its
// slot, so the retry fires; a claimer that died mid-dispatch leaves a
// fired-unknown receipt that replays (exit 1) instead of firing again; a
// torn ledger refuses with exit 1 naming the file and sends nothing.
func TestActSlotLockedRefusalReleases(t *testing.T) {
	e := newEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")

	held := strconv.FormatInt(time.Now().UnixMilli()+60_000, 10) + ":feed:1:deny"
	e.s.MustRun("set", "-p", "-t", a.Pane, "@agent_action", held)
	r, _, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", "s1")
	if code != 5 || r.reason() != "locked" || *r.Cached {
		t.Fatalf("locked: exit %d %+v", code, r)
	}
	if out, _, _ := e.tma("receipts", "--slot", "s1"); out != "" {
		t.Errorf("a locked refusal left a receipt: %q", out)
	}
	e.nothingSent(in)
	e.s.MustRun("set", "-pu", "-t", a.Pane, "@agent_action")
	if r, _, code = e.slotJSON("approve", "--pane", a.Pane, "--slot", "s1"); code != 0 || r.Outcome != "sent" || *r.Cached {
		t.Fatalf("retry after the lock: exit %d %+v", code, r)
	}
	e.waitSent(in, "1")

	// A claim whose process is gone: the keys may have landed.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	claim := `{"v":1,"slot":"s2","pane":"` + a.Pane + `","action":"approve","device":null,"at_ms":` + itoa(now) + `,"outcome":null,"exit_code":null,"reason":null,"nonce":"x","pid":` + strconv.Itoa(dead.Process.Pid) + `,"deadline_ms":` + itoa(now+600_000) + "}\n"
	b, err := os.ReadFile(e.ledger())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.ledger(), append(b, claim...), 0o600); err != nil {
		t.Fatal(err)
	}
	r, errs, code := e.slotJSON("approve", "--pane", a.Pane, "--slot", "s2")
	if code != 1 || r.Outcome != "error" || r.reason() != "fired-unknown" || !*r.Cached {
		t.Errorf("a dead claimer's slot: exit %d %+v %s", code, r, errs)
	}
	if out, _, _ := e.tma("receipts", "--slot", "s2"); !strings.Contains(out, "\ts2\t"+a.Pane+"\tapprove\terror\tfired-unknown\t1\t-\n") {
		t.Errorf("fired-unknown receipt: %q", out)
	}

	// A torn ledger: act refuses (exit 1) naming the file; receipts too.
	if err := os.WriteFile(e.ledger(), []byte("{torn\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code = e.tma("act", "approve", "--pane", a.Pane, "--slot", "s3"); code != 1 || !strings.Contains(errs, e.ledger()) {
		t.Errorf("torn ledger: exit %d %s", code, errs)
	}
	if _, errs, code = e.tma("receipts"); code != 1 || !strings.Contains(errs, e.ledger()) {
		t.Errorf("receipts on a torn ledger: exit %d %s", code, errs)
	}
	time.Sleep(200 * time.Millisecond)
	if got := sent(t, in); got != "1" {
		t.Errorf("the agent received %q, want the one approve", got)
	}
}
