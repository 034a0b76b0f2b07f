package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// A card asked over the real sshd of a blocked fake claude on the remote
// tmux server: the dialog read off its screen (no hook stamped a tool), the
// words to the device that may answer, withheld from the read-only one.
func TestServeOverSSHCard(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	e := newEnv(t, "")
	a, in := e.s.StartRecordingAgent("claude", claudeBlocked)
	e.expect(a.Pane, "blocked/permission attn")
	phone, tablet := sshd.NewKey("phone"), sshd.NewKey("tablet")
	sshd.Authorize(e.forced(phone, phone.Fingerprint), e.forced(tablet, tablet.Fingerprint))
	e.device("pair", "phone", "--id", phone.Fingerprint)
	e.device("pair", "tablet", "--id", tablet.Fingerprint, "--only")

	p := dialSSH(t, sshd.SSH(phone))
	p.send(helloFrame)
	p.next()
	p.send(fmt.Sprintf(`{"schema":1,"id":"c","t":"card","pane":%q}`, a.Pane))
	f := p.next()
	raw := f["_raw"].(string)
	if f["t"] != "card" || f["pane"] != a.Pane || f["kind"] != "permission" || f["lane"] != "screen" || f["confidence"] != "wrapped" ||
		f["question"] != "Do you want to proceed?" || f["withheld"] != false {
		t.Fatalf("phone card %s; %s", raw, p.stderr.String())
	}
	if !strings.Contains(raw, `"options":[{"label":"Yes","description":null},{"label":"Yes, and don't ask again","description":null},`) ||
		!strings.Contains(raw, `"text":"Bash command\ntouch probe.txt\nDo you want to proceed?"`) || strings.Contains(raw, "title") {
		t.Errorf("phone card %s", raw)
	}
	p.send(`{"schema":1,"id":"c2","t":"card","pane":"%999"}`)
	if f := p.next(); f["t"] != "error" || f["code"] != "not-found" {
		t.Errorf("card of no pane: %s", f["_raw"])
	}
	p.in.Close()
	p.wait()

	d := dialSSH(t, sshd.SSH(tablet))
	d.send(helloFrame)
	d.next()
	d.send(fmt.Sprintf(`{"schema":1,"id":"c","t":"card","pane":%q}`, a.Pane))
	f = d.next()
	if raw := f["_raw"].(string); f["kind"] != "permission" || f["withheld"] != true || f["question"] != nil || strings.Contains(raw, "proceed") {
		t.Errorf("tablet card %s", raw)
	}
	d.in.Close()
	d.wait()
	// Reading a card sends nothing to the pane.
	e.nothingSent(in)
}

// A question's option answered over --stdio (issue 28 item 5): the
// dispatch's arg, under the card's episode, types that option once; a
// stale episode sends nothing.
func TestServeOverSSHAnswersAnOption(t *testing.T) {
	sshd := testkit.NewSSHD(t)
	e := newEnv(t, "")
	q, in := e.s.StartRecordingAgent("claude", claudeQuestion)
	e.expect(q.Pane, "blocked/question attn")
	phone := sshd.NewKey("phone")
	sshd.Authorize(e.forced(phone, phone.Fingerprint))
	e.device("pair", "phone", "--id", phone.Fingerprint)

	p := dialSSH(t, sshd.SSH(phone))
	p.send(helloFrame)
	p.next()
	p.send(fmt.Sprintf(`{"schema":1,"id":"c","t":"card","pane":%q}`, q.Pane))
	c := p.next()
	ep := int64(c["episode_ms"].(float64))
	p.send(fmt.Sprintf(`{"schema":1,"id":"d1","t":"dispatch","action":"answer","pane":%q,"slot":"o1","arg":"3","expect_episode_ms":%d}`, q.Pane, ep-1))
	if f := p.next(); f["outcome"] != "refused" || f["reason"] != "episode-changed" {
		t.Fatalf("a stale answer: %s", f["_raw"])
	}
	p.send(fmt.Sprintf(`{"schema":1,"id":"d2","t":"dispatch","action":"answer","pane":%q,"slot":"o2","arg":"3","expect_episode_ms":%d}`, q.Pane, ep))
	if f := p.next(); f["outcome"] != "sent" || f["device"] != "phone" {
		t.Fatalf("answer: %s; %s", f["_raw"], p.stderr.String())
	}
	e.waitSent(in, "3")
	p.send(fmt.Sprintf(`{"schema":1,"id":"d3","t":"dispatch","action":"answer","pane":%q,"slot":"o3"}`, q.Pane))
	if f := p.next(); f["t"] != "error" || f["code"] != "bad-request" {
		t.Errorf("an answer without its option: %s", f["_raw"])
	}
	p.in.Close()
	p.wait()
	if got := sent(t, in); got != "3" {
		t.Errorf("the pane received %q, want 3", got)
	}
}
