package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/fixture"
	"github.com/tmaproject/tma/lib/testkit"
)

// sent reads what a recording fake agent has received so far.
func sent(t *testing.T, log string) string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// waitSent waits until the pane has received exactly want.
func (e *env) waitSent(log, want string) {
	e.t.Helper()
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if got = sent(e.t, log); got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("the pane received %q, want %q", got, want)
}

// nothingSent asserts a pane received nothing, after giving a stray key
// time to land.
func (e *env) nothingSent(log string) {
	e.t.Helper()
	time.Sleep(200 * time.Millisecond)
	if got := sent(e.t, log); got != "" {
		e.t.Fatalf("the pane received %q, want nothing", got)
	}
}

type actResult struct {
	Schema   int     `json:"schema"`
	Action   string  `json:"action"`
	Pane     string  `json:"pane"`
	Outcome  string  `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	Reason   *string `json:"reason"`
}

func (r actResult) reason() string {
	if r.Reason == nil {
		return ""
	}
	return *r.Reason
}

// actJSON fires with --json and decodes the one result object.
func (e *env) actJSON(extra []string, args ...string) (actResult, string, int) {
	e.t.Helper()
	out, errs, code := e.tmaEnv(extra, append([]string{"act", "--json"}, args...)...)
	var r actResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("tma act %v: exit %d, not a result object: %q (stderr %s)", args, code, out, errs)
	}
	if k := testkit.KeyOrder(e.t, out); k != "schema action pane outcome exit_code reason" {
		e.t.Errorf("result keys: %s", k)
	}
	if r.ExitCode != code {
		e.t.Errorf("exit_code %d but the process exited %d", r.ExitCode, code)
	}
	return r, errs, code
}

func (e *env) userAction(name, body string) {
	e.t.Helper()
	d := filepath.Join(e.home, ".config", "tma", "actions")
	if err := os.MkdirAll(d, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, name+".toml"), []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// TestActApproveDeliversTheManifestKeys fires approve and deny on a blocked
// claude pane and reads, byte for byte, what the agent received: the
// manifest's 1, then Escape; the lock is released each time; the third
// approve in one episode warns; the audit log records each fire without the
// pane title.
func TestActApproveDeliversTheManifestKeys(t *testing.T) {
	log := filepath.Join(t.TempDir(), "state", "acts.jsonl")
	e := newEnv(t, "[act]\nlog = \""+log+"\"\n")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")

	r, errs, code := e.actJSON(nil, "approve", "--pane", a.Pane)
	if code != 0 || r.Outcome != "sent" || r.Reason != nil || r.Action != "approve" || r.Pane != a.Pane {
		t.Fatalf("approve: exit %d %+v %s", code, r, errs)
	}
	e.waitSent(in, "1")
	if v := e.s.Option(a.Pane, "@agent_action"); v != "" {
		t.Errorf("the lock was not released: %q", v)
	}
	if _, errs, code = e.tma("act", "approve", "--pane", a.Pane); code != 0 || strings.Contains(errs, "consecutive") {
		t.Fatalf("second approve: exit %d %s", code, errs)
	}
	if _, errs, code = e.tma("act", "approve", "--pane", a.Pane); code != 0 || !strings.Contains(errs, "tma: 3 consecutive approve on "+a.Pane+" in this episode; the agent may be re-asking") {
		t.Fatalf("third approve: exit %d, no repeat warning: %s", code, errs)
	}
	if v := e.s.Option(a.Pane, "@agent_act_repeat"); !strings.HasSuffix(v, ":approve:3") {
		t.Errorf("@agent_act_repeat = %q", v)
	}
	if _, errs, code = e.tma("act", "deny", "--pane", a.Pane); code != 0 {
		t.Fatalf("deny: exit %d %s", code, errs)
	}
	e.waitSent(in, "111\x1b")
	if v := e.s.Option(a.Pane, "@agent_act_repeat"); !strings.HasSuffix(v, ":deny:1") {
		t.Errorf("another action starts the run over: %q", v)
	}

	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 {
		t.Fatalf("audit lines %d, want 4:\n%s", len(lines), b)
	}
	if k := testkit.KeyOrder(t, lines[0]); k != "schema at batch source device action kind pane agent episode_ms outcome reason exit_code repeat pending_tool pending_call" {
		t.Errorf("audit keys: %s", k)
	}
	if !strings.Contains(lines[2], `"repeat":3`) || !strings.Contains(lines[0], `"source":"cli"`) || !strings.Contains(lines[3], `"action":"deny","kind":"keys"`) {
		t.Errorf("audit lines:\n%s", b)
	}
	if strings.Contains(string(b), "Probe") {
		t.Errorf("the audit log carries the pane title:\n%s", b)
	}
	if st, _ := os.Stat(log); st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v", st.Mode().Perm())
	}
}

// TestActRefusalsSendNothing: a gated fire, a held lock, a changed episode,
// a dry run and a wrong agent (even forced) all leave the pane untouched,
// each with its own exit code.
func TestActRefusalsSendNothing(t *testing.T) {
	e := newEnv(t, "")
	w, in := e.s.StartRecordingAgent("claude", claudeWorking)
	e.expect(w.Pane, "working")

	r, errs, code := e.actJSON(nil, "approve", "--pane", w.Pane)
	if code != 4 || r.Outcome != "refused" || r.reason() != "gated" {
		t.Fatalf("approve on working: exit %d %+v", code, r)
	}
	if !strings.Contains(errs, "approve needs blocked") {
		t.Errorf("no reason on stderr: %s", errs)
	}

	out, _, code := e.tma("act", "interrupt", "--pane", w.Pane, "--dry-run")
	if code != 0 || !strings.Contains(out, "gate:    fireable") || !strings.Contains(out, "effect:  keys: Escape") || !strings.Contains(out, "action:  interrupt") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	if out, _, code = e.tma("act", "approve", "--pane", w.Pane, "--dry-run"); code != 4 || !strings.Contains(out, "gate:    refused: gated") {
		t.Errorf("gated dry run: exit %d\n%s", code, out)
	}

	// A lock another fire holds: exit 5, and the lock is left alone.
	held := strconv.FormatInt(time.Now().UnixMilli()+60_000, 10) + ":feed:1:deny"
	e.s.MustRun("set", "-p", "-t", w.Pane, "@agent_action", held)
	if r, _, code = e.actJSON(nil, "interrupt", "--pane", w.Pane); code != 5 || r.reason() != "locked" {
		t.Errorf("locked: exit %d %+v", code, r)
	}
	if r, _, code = e.actJSON(nil, "interrupt", "--pane", w.Pane, "--force"); code != 5 {
		t.Errorf("--force never skips the lock: exit %d %+v", code, r)
	}
	if v := e.s.Option(w.Pane, "@agent_action"); v != held {
		t.Errorf("a refused fire touched the held lock: %q", v)
	}
	e.nothingSent(in)

	// An expired lock holds nothing; a stale episode refuses under it.
	e.s.MustRun("set", "-p", "-t", w.Pane, "@agent_action", "1000:dead:1:deny")
	if r, _, code = e.actJSON(nil, "interrupt", "--pane", w.Pane, "--expect-episode-ms", "1"); code != 4 || r.reason() != "episode-changed" {
		t.Errorf("episode-changed: exit %d %+v", code, r)
	}
	e.nothingSent(in)
	if v := e.s.Option(w.Pane, "@agent_action"); v != "" {
		t.Errorf("the lock taken for the refused fire was not released: %q", v)
	}

	// wrong-agent holds even under --force.
	e.userAction("codexonly", "min_engine_version = \"0.1\"\nname = \"codexonly\"\nlabel = \"Codex only\"\nkind = \"keys\"\nagents = [\"codex\"]\n[keys]\ncodex = [\"x\"]\nclaude = [\"x\"]\n")
	if r, _, code = e.actJSON(nil, "codexonly", "--pane", w.Pane, "--force"); code != 4 || r.reason() != "wrong-agent" {
		t.Errorf("wrong agent under --force: exit %d %+v", code, r)
	}
	// A pane that is no agent's: wrong-agent; a pane that does not exist: vanished.
	shell := e.window("s", "sleep 600")
	if r, _, code = e.actJSON(nil, "interrupt", "--pane", shell); code != 4 || r.reason() != "wrong-agent" {
		t.Errorf("no agent: exit %d %+v", code, r)
	}
	if r, _, code = e.actJSON(nil, "interrupt", "--pane", "%999"); code != 3 || r.Outcome != "vanished" || r.reason() != "pane-gone" {
		t.Errorf("no pane: exit %d %+v", code, r)
	}
	e.nothingSent(in)

	// The episode the pane is in passes the binder.
	doc, _, _ := e.tma("ls", "--json")
	var ls struct {
		Agents []struct {
			Pane      string `json:"pane"`
			EpisodeMS int64  `json:"episode_ms"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(doc), &ls); err != nil {
		t.Fatal(err)
	}
	ep := ""
	for _, a := range ls.Agents {
		if a.Pane == w.Pane {
			ep = strconv.FormatInt(a.EpisodeMS, 10)
		}
	}
	if r, errs, code = e.actJSON(nil, "interrupt", "--pane", w.Pane, "--expect-episode-ms", ep); code != 0 || r.Outcome != "sent" {
		t.Fatalf("interrupt in the expected episode: exit %d %+v %s", code, r, errs)
	}
	e.waitSent(in, "\x1b")
}

// TestActTextPayloads: the payload rules refuse before any tmux command
// (no server at all), a steer types the line literally then presses the
// suffix, and --arg on a keys action is a usage error.
func TestActTextPayloads(t *testing.T) {
	e := newEnv(t, "")
	for text, reason := range map[string]string{"": "empty", "/clear": "sigil", "!ls": "sigil", "two\nlines": "control-bytes", strings.Repeat("x", 4097): "too-long"} {
		out, _, code := e.tma("-L", "tma-no-such-server", "act", "steer", "--pane", "%1", "--text", text, "--json")
		if code != 4 || !strings.Contains(out, `"outcome":"refused","exit_code":4,"reason":"`+reason+`"`) {
			t.Errorf("--text %.20q: exit %d %s", text, code, out)
		}
	}
	if _, errs, code := e.tma("act", "approve", "--pane", "%1", "--arg", "x"); code != 2 || !strings.Contains(errs, "--arg is for exec actions") {
		t.Errorf("--arg on keys: exit %d %s", code, errs)
	}

	a, in := e.s.StartRecordingAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	if r, errs, code := e.actJSON(nil, "steer", "--pane", a.Pane, "--text", "Enter C-c 'quoted' ; #{pane_id}"); code != 0 || r.Outcome != "sent" {
		t.Fatalf("steer: exit %d %+v %s", code, r, errs)
	}
	e.waitSent(in, "Enter C-c 'quoted' ; #{pane_id}\r")
	if r, _, code := e.actJSON(nil, "steer_now", "--pane", a.Pane, "--text", "later"); code != 4 || r.reason() != "gated" {
		t.Errorf("steer_now on idle: exit %d %+v", code, r)
	}
}

// TestActExecEnvAndTimeout: an exec action sees the pane only through TMA_*
// variables (a $(…) argument stays text), passes its child's code through
// even inside the reserved band, and is killed at timeout_ms (exit 124).
func TestActExecEnvAndTimeout(t *testing.T) {
	e := newEnv(t, "")
	a := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "idle")
	dump := filepath.Join(t.TempDir(), "env")
	e.userAction("probe", "min_engine_version = \"0.1\"\nname = \"probe\"\nlabel = \"Probe\"\nkind = \"exec\"\nagents = [\"claude\"]\nrequires = [\"cwd\"]\nwhen = { state = [\"idle\"] }\ncommand = 'env | grep \"^TMA_\" | sort > \"$DUMP\"; exit 4'\n")
	e.userAction("slow", "min_engine_version = \"0.1\"\nname = \"slow\"\nlabel = \"Slow\"\nkind = \"exec\"\ntimeout_ms = 300\ncommand = 'sleep 10'\n")
	e.userAction("needs", "min_engine_version = \"0.1\"\nname = \"needs\"\nlabel = \"Needs a session\"\nkind = \"exec\"\nrequires = [\"session\"]\ncommand = 'touch \"$DUMP\"'\n")

	r, _, code := e.actJSON([]string{"DUMP=" + dump}, "probe", "--pane", a.Pane, "--arg", "$(reboot)", "--arg", "two words")
	if code != 4 || r.Outcome != "exited" || r.ExitCode != 4 || r.Reason != nil {
		t.Fatalf("probe: exit %d %+v", code, r)
	}
	env := read(t, dump)
	for _, want := range []string{"TMA_ACTION=probe\n", "TMA_PANE=" + a.Pane + "\n", "TMA_AGENT=claude\n", "TMA_STATE=idle\n",
		"TMA_ARG=$(reboot)\n", "TMA_ARG_1=$(reboot)\n", "TMA_ARG_2=two words\n", "TMA_ARG_COUNT=2\n", "TMA_LOCATOR=s:", "TMA_CWD=/"} {
		if !strings.Contains(env, want) {
			t.Errorf("child env lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "TMA_DETAIL") || strings.Contains(env, "TMA_SESSION_ID") {
		t.Errorf("a value with nothing to report must be unset:\n%s", env)
	}
	start := time.Now()
	if r, _, code = e.actJSON(nil, "slow", "--pane", a.Pane); code != 124 || r.Outcome != "timeout" {
		t.Errorf("slow: exit %d %+v", code, r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	os.Remove(dump)
	if r, _, code = e.actJSON([]string{"DUMP=" + dump}, "needs", "--pane", a.Pane, "--force"); code != 4 || r.reason() != "requires-unmet" {
		t.Errorf("requires under --force: exit %d %+v", code, r)
	}
	if _, err := os.Stat(dump); err == nil {
		t.Errorf("a refused exec action ran")
	}
	// confirm without a terminal and without --yes: refused, not run.
	e.userAction("careful", "min_engine_version = \"0.1\"\nname = \"careful\"\nlabel = \"Careful\"\nkind = \"exec\"\nconfirm = true\ncommand = 'touch \"$DUMP\"'\n")
	if r, _, code = e.actJSON([]string{"DUMP=" + dump}, "careful", "--pane", a.Pane); code != 4 || r.reason() != "unconfirmed" {
		t.Errorf("confirm without --yes: exit %d %+v", code, r)
	}
	if _, err := os.Stat(dump); err == nil {
		t.Errorf("an unconfirmed action ran")
	}
	if r, _, code = e.actJSON([]string{"DUMP=" + dump}, "careful", "--pane", a.Pane, "--yes"); code != 0 || r.Outcome != "exited" {
		t.Errorf("confirm with --yes: exit %d %+v", code, r)
	}
}

// TestActAllFanOut: --all fires on every selected pane with its own gate,
// exits with the worst target's code, and an empty selection is exit 2; a
// selector that must name one pane refuses to pick among several.
func TestActAllFanOut(t *testing.T) {
	e := newEnv(t, "")
	w, win := e.s.StartRecordingAgent("claude", claudeWorking)
	b, bin := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(w.Pane, "working")
	e.expect(b.Pane, "blocked/permission attn")

	out, _, code := e.tma("act", "interrupt", "--all", "--json")
	if code != 4 {
		t.Errorf("--all exit %d, want 4 (the gated target is the worst)", code)
	}
	if k := testkit.KeyOrder(t, out); k != "schema results" {
		t.Errorf("envelope keys %s", k)
	}
	var env struct {
		Results []actResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil || len(env.Results) != 2 {
		t.Fatalf("envelope: %v %s", err, out)
	}
	got := map[string]string{}
	for _, r := range env.Results {
		got[r.Pane] = r.Outcome + "/" + r.reason()
	}
	if got[w.Pane] != "sent/" || got[b.Pane] != "refused/gated" {
		t.Errorf("results %v", got)
	}
	e.waitSent(win, "\x1b")
	e.nothingSent(bin)

	if out, _, code = e.tma("act", "interrupt", "--all", "--state", "working", "--json"); code != 0 || !strings.Contains(out, `"results":[{`) || strings.Count(out, `"pane"`) != 1 {
		t.Errorf("--all on one match: exit %d %s", code, out)
	}
	if _, errs, code := e.tma("act", "interrupt", "--all", "--agent", "nosuch"); code != 2 || !strings.Contains(errs, "no agent pane matches") {
		t.Errorf("empty --all: exit %d %s", code, errs)
	}
	if _, errs, code := e.tma("act", "interrupt", "--agent", "claude"); code != 2 || !strings.Contains(errs, "matches 2 panes") {
		t.Errorf("ambiguous selector: exit %d %s", code, errs)
	}
	if out, _, code = e.tma("act", "interrupt", "--all", "--dry-run"); code != 4 || !strings.Contains(out, "targets: 2") || !strings.Contains(out, "would fire") || !strings.Contains(out, "refused: gated") {
		t.Errorf("--all --dry-run: exit %d\n%s", code, out)
	}
}

// TestActListAndMenu: --list --pane says what can fire and why not; --menu
// draws the fireable actions on an attached client and an entry fires; with
// nothing fireable no menu opens.
func TestActListAndMenu(t *testing.T) {
	e := newEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	idle := e.s.StartAgent("claude", claudeIdle)
	e.expect(a.Pane, "blocked/permission attn")
	e.expect(idle.Pane, "idle")

	out, _, code := e.tma("act", "--list", "--pane", a.Pane, "--json")
	if code != 0 {
		t.Fatalf("--list --pane: exit %d", code)
	}
	var doc struct {
		Actions []struct {
			Name     string  `json:"name"`
			Fireable bool    `json:"fireable"`
			Reason   *string `json:"reason"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	fire := map[string]string{}
	for _, x := range doc.Actions {
		v := "fireable"
		if !x.Fireable {
			v = *x.Reason
		}
		fire[x.Name] = v
	}
	if fire["approve"] != "fireable" || fire["deny"] != "fireable" || fire["interrupt"] != "gated" || fire["compact"] != "gated" {
		t.Errorf("fireable on blocked: %v", fire)
	}

	c := e.attach("s")
	if _, errs, code := e.tma("act", "--menu", "--pane", idle.Pane, "--client", c.name); code != 0 || !strings.Contains(errs, "nothing to act on in "+idle.Pane) {
		t.Errorf("nothing fireable: exit %d %s", code, errs)
	}
	e.s.WaitFor(func() bool { return c.seen("nothing to act on") }, "the display-message on the client")
	if c.seen("Approve the pending request") {
		t.Fatalf("a menu opened on a pane with nothing fireable")
	}
	if _, errs, code := e.tma("act", "--menu", "--pane", a.Pane, "--client", c.name); code != 0 {
		t.Fatalf("--menu: exit %d %s", code, errs)
	}
	e.s.WaitFor(func() bool { return c.seen("Approve the pending request") && c.seen("Deny the pending request") }, "the act menu drawn")
	if c.seen("Interrupt the turn") {
		t.Errorf("the menu offers a gated action")
	}
	c.keys("a") // approve's quick-select key
	e.waitSent(in, "1")

	// The prefix A binding exactly as install-keys writes it (no --client:
	// run-shell's $TMUX names the session, whose client pressed the key).
	e.s.MustRun("bind-key", "A", "run-shell", filepath.Join(binDir, "tma")+` act --menu --pane "#{pane_id}"`)
	e.s.MustRun("select-window", "-t", a.Pane)
	c.waitPane(a.Pane, "the agent's window")
	drawn := func() int {
		b, _ := os.ReadFile(c.typescript)
		return strings.Count(string(b), "Deny the pending request")
	}
	n := drawn()
	c.keys("\x02A")
	e.s.WaitFor(func() bool { return drawn() > n }, "the menu from prefix A")
	c.keys("d")
	e.waitSent(in, "1\x1b")
}

// TestActDoctorLine: doctor's actions: line counts the loaded actions and
// names each skipped file and each action naming an unknown agent, each a
// warning.
func TestActDoctorLine(t *testing.T) {
	e := newEnv(t, "")
	out, _, _ := e.tma("doctor")
	if !strings.Contains(out, "\nactions: 8 loaded, no issues\n") {
		t.Errorf("doctor with the bundled actions:\n%s", out)
	}
	e.userAction("broken", "min_engine_version = \"0.1\"\nname = \"broken\"\nlabel = \"B\"\nkind = \"keys\"\n")
	e.userAction("typo", "min_engine_version = \"0.1\"\nname = \"typo\"\nlabel = \"T\"\nkind = \"exec\"\nagents = [\"claudee\"]\ncommand = \"true\"\n")
	out, _, _ = e.tma("doctor")
	want := "\nactions: 9 loaded, 1 skipped, 1 naming an unknown agent:\n  - " + filepath.Join(e.home, ".config", "tma", "actions", "broken.toml") + ": missing [keys]: a keys action needs a key sequence for at least one agent\n  - typo: names unknown agent \"claudee\"\n"
	if !strings.Contains(out, want) {
		t.Errorf("doctor lacks %q:\n%s", want, out)
	}
	doc, _, _ := e.tma("doctor", "--json")
	var d struct {
		Actions struct {
			Loaded int      `json:"loaded"`
			Issues []string `json:"issues"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil || d.Actions.Loaded != 9 || len(d.Actions.Issues) != 2 {
		t.Errorf("doctor --json actions: %v %+v", err, d.Actions)
	}
}

// TestActWaitsForADialogToSettle: Crush drops the keys that reach a dialog
// in its first moments ([input] settle_ms = 700 in its manifest: a key
// sent at once after the dialog opened was lost in the lab, the prompt
// stayed). `tma act approve` fired as soon as the pane reads blocked
// presses its key only once the blocked run is settle_ms old, and exactly
// once.
func TestActWaitsForADialogToSettle(t *testing.T) {
	e := newEnv(t, "")
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "crush", "blocked-bash-w120.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fixture.Parse("crush/blocked-bash-w120.txt", b)
	if err != nil {
		t.Fatal(err)
	}
	settle := int64(load(t).Get("crush").SettleMS)
	if settle < 500 {
		t.Fatalf("crush's manifest settles %d ms; the lab saw keys lost inside 425 ms", settle)
	}
	// A session of the capture's size, so the screen paints as it was
	// taken; its words without their colours (the rules read plain text).
	plain := regexp.MustCompile("\x1b\\[[0-9;?]*[a-zA-Z]").ReplaceAllString(fx.Screen, "")
	screen, in := filepath.Join(e.s.Dir, "crush-screen"), filepath.Join(e.s.Dir, "crush-input")
	if err := os.WriteFile(screen, []byte(fmt.Sprintf("# title: %s\n# width: %d\n---\n%s", fx.Title, fx.Width, plain)), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := strings.TrimSpace(e.s.MustRun("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "crush", "-x", fmt.Sprint(fx.Width), "-y", fmt.Sprint(fx.Height),
		"sh", "-c", "set -m; stty raw -echo; "+testkit.FakeAgent(t, "crush")+" "+screen+" "+in+"; exec sh"))
	e.s.WaitFor(func() bool {
		o, _ := e.s.Run("display", "-p", "-t", pane, "#{pane_current_command}")
		return strings.TrimSpace(o) == "crush"
	}, "crush in the foreground of "+pane)
	e.expect(pane, "blocked/permission attn")
	since, err := strconv.ParseInt(strings.TrimSpace(e.s.MustRun("display", "-p", "-t", pane, "#{@agent_since}")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := e.tma("act", "approve", "--pane", pane)
	done := time.Now().UnixMilli()
	if code != 0 {
		t.Fatalf("act approve: exit %d\n%s%s", code, out, errs)
	}
	if done < since+settle {
		t.Errorf("act returned %d ms after the dialog's blocked run began, before the %d ms it drops keys for", done-since, settle)
	}
	e.waitSent(in, "a")
	time.Sleep(200 * time.Millisecond)
	if got := sent(t, in); got != "a" {
		t.Errorf("the pane received %q, want one a", got)
	}
}
