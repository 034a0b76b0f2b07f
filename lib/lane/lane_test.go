package lane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDecisionBytes(t *testing.T) {
	cases := map[string]string{
		Allow: `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`,
		Deny:  `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied by the user through tma (tma act deny)"}}}`,
		"ask": "",
	}
	for b, want := range cases {
		if got := string(Decision(b)); got != want {
			t.Errorf("Decision(%q) = %s\nwant %s", b, got, want)
		}
	}
}

func TestIDs(t *testing.T) {
	id, err := NewID()
	if err != nil || !ValidID(id) {
		t.Fatalf("NewID = %q, %v", id, err)
	}
	for _, bad := range []string{"", "6f1c2a09d4b7e31", "6F1C2A09D4B7E310", "6f1c2a09d4b7e31g", "../../etc/passwd0"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q)", bad)
		}
	}
	if PaneKey("S:/tmp/a", "%1") == PaneKey("S:/tmp/b", "%1") || PaneKey("L:x", "%1") == PaneKey("L:x", "%2") {
		t.Error("pane keys collide")
	}
}

func dir(t *testing.T) string {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	d := Dir(os.Getenv)
	if err := Ensure(d); err != nil {
		t.Fatal(err)
	}
	return d
}

func request(id, pane string, now time.Time, hold time.Duration) Request {
	return Request{V: 1, ID: id, Agent: "claude", Server: "L:t", Pane: pane, Session: "s", Tool: "Bash", Call: "c", Summary: "touch x",
		PID: 1, CreatedMS: now.UnixMilli(), ExpiresMS: now.Add(hold).UnixMilli()}
}

func TestRecordCodec(t *testing.T) {
	d := dir(t)
	if !strings.HasSuffix(d, "/tma/requests") {
		t.Errorf("Dir = %s", d)
	}
	now := time.Now()
	r := request("6f1c2a09d4b7e310", "%7", now, 25*time.Second)
	path, err := Write(d, r)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v", st.Mode().Perm())
	}
	got, gotPath, err := Find(d, r.ID)
	if err != nil || got == nil || *got != r || gotPath != path {
		t.Fatalf("Find = %+v %s %v", got, gotPath, err)
	}
	if _, ok := Held(d, r.ID, "%7", now.UnixMilli()); !ok {
		t.Error("not held")
	}
	if _, ok := Held(d, r.ID, "%8", now.UnixMilli()); ok {
		t.Error("held for another pane")
	}
	if _, ok := Held(d, r.ID, "%7", r.ExpiresMS); ok {
		t.Error("held past its expiry")
	}
	if _, err := DecodeRequest([]byte(`{"v":1,"id":"6f1c2a09d4b7e310","extra":1}`)); err == nil {
		t.Error("unknown key accepted")
	}
	// A new prompt on the pane supersedes the old record; another pane's stays.
	other, _ := Write(d, request("00000000000000aa", "%8", now, time.Second))
	if _, err := Write(d, request("00000000000000bb", "%7", now, time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("the superseded record is still there")
	}
	if n := ClearPane(d, "L:t", "%7", ""); n != 1 {
		t.Errorf("ClearPane removed %d", n)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("another pane's record was cleared")
	}
}

func TestVerdictTakeAndWithdraw(t *testing.T) {
	d := dir(t)
	id := "6f1c2a09d4b7e310"
	if err := Offer(d, Verdict{ID: id, Behavior: "maybe"}); err == nil {
		t.Error("a bad behaviour was offered")
	}
	if err := Offer(d, Verdict{ID: id, Behavior: Allow, AtMS: 5}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(d, id+".verdict")); st.Mode().Perm() != 0o600 {
		t.Errorf("verdict mode %v", st.Mode().Perm())
	}
	v, ok := Take(d, id)
	if !ok || *v != (Verdict{V: 1, ID: id, Behavior: Allow, AtMS: 5}) {
		t.Fatalf("Take = %+v %v", v, ok)
	}
	if _, ok := Take(d, id); ok {
		t.Error("taken twice")
	}
	if taken, err := Withdraw(d, id); !taken || err != nil {
		t.Errorf("Withdraw after a take = %v %v", taken, err)
	}
	// Offered and never taken: withdrawn, and then no hook can take it.
	_ = Offer(d, Verdict{ID: id, Behavior: Deny})
	if taken, err := AwaitTake(d, id, 60*time.Millisecond); taken || err != nil {
		t.Errorf("AwaitTake with no hook = %v %v", taken, err)
	}
	if _, ok := Take(d, id); ok {
		t.Error("a withdrawn verdict was taken")
	}
}

func TestHoldEndings(t *testing.T) {
	d := dir(t)
	now := time.Now()
	hold := func(id string, wait time.Duration, during func(path string)) (*Verdict, Ending, time.Duration, string) {
		path, err := Write(d, request(id, "%"+id[15:], now, wait))
		if err != nil {
			t.Fatal(err)
		}
		go func() { time.Sleep(30 * time.Millisecond); during(path) }()
		t0 := time.Now()
		v, end := Hold(d, id, path, t0.Add(wait), 10*time.Millisecond)
		return v, end, time.Since(t0), path
	}
	v, end, _, path := hold("0000000000000001", 5*time.Second, func(string) { _ = Offer(d, Verdict{ID: "0000000000000001", Behavior: Deny}) })
	if end != Replied || v.Behavior != Deny {
		t.Errorf("verdict: %v %+v", end, v)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("record kept after a reply")
	}
	_, end, took, _ := hold("0000000000000002", 5*time.Second, func(p string) { _ = os.Remove(p) })
	if end != Cleared || took > time.Second {
		t.Errorf("cleared: %v after %v", end, took)
	}
	_, end, took, path = hold("0000000000000003", 150*time.Millisecond, func(string) {})
	if end != Expired || took < 150*time.Millisecond {
		t.Errorf("expiry: %v after %v", end, took)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("record kept after expiry")
	}
}

func TestEnsureRefusesOpenDir(t *testing.T) {
	x := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", x)
	if err := os.MkdirAll(filepath.Join(x, "tma", "requests"), 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(filepath.Join(x, "tma", "requests"), 0o777)
	_ = os.Chmod(filepath.Join(x, "tma"), 0o700)
	if err := Ensure(Dir(os.Getenv)); err == nil {
		t.Error("a world-writable requests dir was accepted")
	}
}
