package integration

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// The page in a real headless Chromium at a phone's size (390x844), over a
// real tmux server with fake agents: paired from the URL tma device pair
// printed; a blocked permission approved with one tap, the keys once; a
// question's option typed; the page following the agent; a read-only
// device shown no dialog words and no buttons, then revoked mid-session.
// TMA_WEB_SCREENSHOTS=DIR saves the screenshots docs/serve.md shows.
func TestWebPageInChromium(t *testing.T) {
	shots := os.Getenv("TMA_WEB_SCREENSHOTS")
	e, w := newWebEnv(t, laneOff)
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	q, qin := e.s.StartRecordingAgent("claude", claudeQuestion)
	idle := e.s.StartAgent("claude", claudeWorking)
	e.expect(a.Pane, "blocked/permission attn")
	e.expect(q.Pane, "blocked/question attn")
	e.expect(idle.Pane, "working")
	b := startBrowser(t, 390, 844)
	b.diag = func() string {
		out, _, _ := e.tma("ls")
		var tok string
		b.eval(`localStorage.getItem("tma.token") || ""`, &tok)
		r := w.do("GET", "/api/v1/agents", tok, "")
		return "tma ls:\n" + out + "/api/v1/agents: " + r.raw + "serve's log:\n" + w.stderr.String()
	}

	link, _ := w.pairURL("phone")
	b.navigate(link)
	card := func(pane string) string { return fmt.Sprintf("document.querySelector('.card[data-pane=%q]')", pane) }
	btn := func(pane, action, arg string) string {
		return fmt.Sprintf("%s?.querySelector('button[data-action=%q][data-arg=%q]')", card(pane), action, arg)
	}
	b.until(btn(a.Pane, "approve", ""), "the approve button", 15*time.Second)
	b.until(btn(q.Pane, "answer", "2"), "option 2's button", 10*time.Second)
	// "4. Type something." opens Claude's own text field: shown, no button.
	var free struct {
		Button bool
		Note   string
	}
	b.eval(fmt.Sprintf("({Button: !!%s, Note: %s?.querySelector('.note.free[data-free=\"4\"]')?.textContent || ''})", btn(q.Pane, "answer", "4"), card(q.Pane)), &free)
	if free.Button || !strings.Contains(free.Note, "4. Type something.") {
		t.Errorf("the free-text choice: button %v, note %q; want no button and a note", free.Button, free.Note)
	}
	var path string
	b.eval("location.pathname + location.hash", &path)
	if path != "/" {
		t.Errorf("the pairing code stayed in the address bar: %q", path)
	}
	if out := e.device("list"); !strings.Contains(out, "phone\tweb:") {
		t.Errorf("device list after pairing in the browser: %s", out)
	}
	var layout struct{ Width, Scroll int }
	b.eval("({Width: document.documentElement.clientWidth, Scroll: document.documentElement.scrollWidth})", &layout)
	if layout.Width != 390 || layout.Scroll > 390 {
		t.Errorf("at a phone's width the page is %d wide and scrolls to %d", layout.Width, layout.Scroll)
	}
	var text string
	b.eval(card(a.Pane)+".innerText", &text)
	if !strings.Contains(text, "Do you want to proceed?") || !strings.Contains(text, "claude") {
		t.Errorf("the permission card reads:\n%s", text)
	}
	b.eval(card(q.Pane)+".innerText", &text)
	if !strings.Contains(text, "Which colour should the mock paint the probe?") || !strings.Contains(text, "2. Green") {
		t.Errorf("the question card reads:\n%s", text)
	}
	var order []string
	b.eval("Array.from(document.querySelectorAll('h2')).map(h => h.textContent)", &order)
	if len(order) < 2 || !strings.HasPrefix(order[0], "Needs you") {
		t.Errorf("groups %q: blocked first", order)
	}
	b.eval("window.scrollTo(0, 0)", nil)
	b.screenshot(shots, "web-list.png")

	// One tap: the keys once, the outcome shown, the button off while in
	// flight and the page following the agent when it moves on.
	b.eval(btn(a.Pane, "approve", "")+".click()", nil)
	e.waitSent(in, "1")
	b.until(card(a.Pane)+"?.querySelector('.outcome.ok')?.textContent.includes('approve: sent')", "the approve outcome", 10*time.Second)
	start := time.Now()
	a.Paint(claudeWorking)
	took := b.until(card(a.Pane)+"?.classList.contains('working')", "the pane working", 10*time.Second)
	t.Logf("the page showed the approved pane working %s after its screen changed (%s after the paint returned)",
		time.Since(start).Round(time.Millisecond), took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("the page took %s to follow the agent (one 500 ms cycle, an event and a refetch)", took)
	}
	if got := sent(t, in); got != "1" {
		t.Errorf("the pane received %q, want one 1", got)
	}
	// A replayed POST (the same slot, sent twice from the page's own
	// origin with its token) is answered from the receipt: nothing more.
	var replies []map[string]any
	b.eval(fmt.Sprintf(`(async () => { const out = []; for (let i = 0; i < 2; i++) {
		const r = await fetch("/api/v1/act", {method: "POST", headers: {"Authorization": "Bearer " + localStorage.getItem("tma.token"), "Content-Type": "application/json"},
			body: JSON.stringify({action: "interrupt", pane: %q, slot: "replay-1"})});
		out.push(await r.json()); } return out; })()`, a.Pane), &replies)
	if len(replies) != 2 || replies[0]["outcome"] != "sent" || replies[0]["cached"] != false || replies[1]["outcome"] != "sent" || replies[1]["cached"] != true {
		t.Errorf("a replayed POST: %v", replies)
	}
	e.waitSent(in, "1\x1b")
	time.Sleep(300 * time.Millisecond)
	if got := sent(t, in); got != "1\x1b" {
		t.Errorf("after the replay the pane received %q, want 1 and one Escape", got)
	}

	// The question's option button types that option.
	b.eval(fmt.Sprintf("document.getElementById('p%s').scrollIntoView({block: 'start'})", q.Pane[1:]), nil)
	b.screenshot(shots, "web-card.png")
	b.eval(btn(q.Pane, "answer", "2")+".click()", nil)
	e.waitSent(qin, "2")
	b.until(card(q.Pane)+"?.querySelector('.outcome.ok')", "the answer outcome", 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	if got := sent(t, qin); got != "2" {
		t.Errorf("the question pane received %q, want 2", got)
	}
	// The agent takes the answer and works on: the page follows it.
	start = time.Now()
	q.Paint(claudeWorking)
	took = b.until(card(q.Pane)+"?.classList.contains('working')", "the answered pane working", 10*time.Second)
	t.Logf("the page showed the answered pane working %s after its screen changed (%s after the paint returned)",
		time.Since(start).Round(time.Millisecond), took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("the page took %s to follow the answered agent", took)
	}

	// A read-only device: the blocked card says what is blocked, not the
	// dialog's words, and has no button.
	a.Paint(claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	q.Paint(claudeQuestion)
	e.expect(q.Pane, "blocked/question attn")
	// A blocker the hook stamped: its tool and command are the row's own
	// keys, and the read-only page still draws none of them.
	hk := e.s.StartAgent("claude", claudeWorking)
	e.expect(hk.Pane, "working")
	e.fire(hk.Pane, "claude", "UserPromptSubmit", `{"session_id":"s-h","prompt":"hi"}`)
	e.fire(hk.Pane, "claude", "PermissionRequest", `{"session_id":"s-h","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
	e.expect(hk.Pane, "blocked/permission attn")
	tlink, _ := w.pairURL("tablet", "--only")
	b.navigate(tlink)
	b.until("document.getElementById('host')?.textContent.includes('tablet')", "the tablet paired", 15*time.Second)
	b.until(card(q.Pane)+"?.querySelector('.note')?.textContent.includes('may read, not answer')", "the withheld note", 10*time.Second)
	b.until(card(a.Pane)+"?.classList.contains('blocked') && "+card(a.Pane)+".querySelector('.note')?.textContent.includes('may read')", "the permission withheld", 10*time.Second)
	var buttons int
	b.eval("document.querySelectorAll('button').length", &buttons)
	b.eval("document.body.innerText", &text)
	b.until(card(hk.Pane)+"?.querySelector('.note')", "the hook-stamped card withheld", 10*time.Second)
	b.eval("document.body.innerText", &text)
	if buttons != 0 || strings.Contains(text, "Green") || strings.Contains(text, "proceed") || strings.Contains(text, "colour") ||
		strings.Contains(text, "rm -rf") || strings.Contains(text, "Bash") {
		t.Errorf("a read-only device sees %d buttons and:\n%s", buttons, text)
	}
	b.screenshot(shots, "web-readonly.png")

	// Revoked mid-session: the stream ends and the page says so.
	e.device("revoke", "tablet")
	b.until("document.getElementById('msg').textContent.includes('revoked')", "the revoke", 10*time.Second)
	b.eval("document.querySelectorAll('.card').length", &buttons)
	if buttons != 0 {
		t.Errorf("%d cards still shown after the revoke", buttons)
	}
}
