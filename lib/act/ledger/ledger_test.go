package ledger

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tmaproject/tma/lib/testkit"
)

func str(s string) *string { return &s }

func receipt(slot string, at int64, outcome string, code int) Entry {
	return Done(slot, "n-"+slot, Receipt{Pane: "%5", Action: "approve", AtMS: at, Outcome: outcome, ExitCode: code})
}

func claim(slot string, at, deadline int64, pid int) Entry {
	return Entry{V: 1, Slot: slot, Pane: "%5", Action: "approve", AtMS: at, Nonce: "n-" + slot, PID: pid, DeadlineMS: deadline}
}

func TestReceiptJSONKeySet(t *testing.T) {
	e := Done("approve:%5:1", "abc", Receipt{Pane: "%5", Action: "approve", Device: str("phone"), AtMS: 7, Outcome: "sent", ExitCode: 0})
	b, _ := json.Marshal(e.Receipt())
	if k := testkit.KeyOrder(t, string(b)); k != "slot pane action device at_ms outcome exit_code reason" {
		t.Errorf("receipt keys: %s", k)
	}
	if string(b) != `{"slot":"approve:%5:1","pane":"%5","action":"approve","device":"phone","at_ms":7,"outcome":"sent","exit_code":0,"reason":null}` {
		t.Errorf("receipt: %s", b)
	}
	b, _ = json.Marshal(Doc{Schema: 1, Receipts: Receipts(nil, "")})
	if string(b) != `{"schema":1,"receipts":[]}` {
		t.Errorf("empty document: %s", b)
	}
	// The ledger line: a receipt has no claim fields, a claim has them.
	if k := testkit.KeyOrder(t, string(Encode([]Entry{e}))); k != "v slot pane action device at_ms outcome exit_code reason nonce" {
		t.Errorf("receipt line keys: %s", k)
	}
	if k := testkit.KeyOrder(t, string(Encode([]Entry{claim("s", 1, 2, 3)}))); k != "v slot pane action device at_ms outcome exit_code reason nonce pid deadline_ms" {
		t.Errorf("claim line keys: %s", k)
	}
}

func TestDoneRecordsErrorsAsFiredUnknown(t *testing.T) {
	e := Done("s", "n", Receipt{Pane: "%1", Action: "approve", AtMS: 1, Outcome: "error", ExitCode: 1})
	if r := e.Receipt(); r.Outcome != "error" || r.ExitCode != 1 || r.Reason == nil || *r.Reason != ReasonFiredUnknown {
		t.Errorf("error receipt: %+v", r)
	}
	e = Done("s", "n", Receipt{Pane: "%1", Action: "approve", AtMS: 1, Outcome: "refused", ExitCode: 4, Reason: str("gated")})
	if r := e.Receipt(); *r.Reason != "gated" || r.ExitCode != 4 {
		t.Errorf("refusal receipt: %+v", r)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	es := []Entry{receipt("a", 10, "sent", 0), claim("b", 20, 99, 42), receipt("c\u00e9 \"q\" <x>", 30, "exited", 7)}
	es[0].Device = str("phone")
	b := Encode(es)
	if strings.Contains(string(b), `\u003c`) {
		t.Errorf("HTML escaping in the ledger: %s", b)
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(es, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if got, err := Parse(nil); err != nil || len(got) != 0 {
		t.Errorf("empty ledger: %v %v", got, err)
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	good := string(Encode([]Entry{receipt("a", 10, "sent", 0)}))
	for name, body := range map[string]string{
		"garbage":         good + "not json\n",
		"torn line":       good + `{"v":1,"slot":"b"`,
		"unknown key":     strings.Replace(good, `"v":1`, `"v":1,"colour":"red"`, 1),
		"version":         strings.Replace(good, `"v":1`, `"v":2`, 1),
		"outcome":         strings.Replace(good, `"sent"`, `"maybe"`, 1),
		"no exit_code":    strings.Replace(good, `"exit_code":0`, `"exit_code":null`, 1),
		"empty slot":      strings.Replace(good, `"slot":"a"`, `"slot":""`, 1),
		"control in slot": strings.Replace(good, `"slot":"a"`, `"slot":"a\tb"`, 1),
		"no nonce":        strings.Replace(good, `"nonce":"n-a"`, `"nonce":""`, 1),
		"claim no pid":    string(Encode([]Entry{{V: 1, Slot: "c", Action: "x", AtMS: 1, Nonce: "n", DeadlineMS: 5}})),
		"duplicate slot":  good + good,
		"blank line":      "\n" + good,
		"two per line":    strings.TrimSuffix(good, "\n") + good,
	} {
		_, err := Parse([]byte(body))
		var le *LineError
		if !errors.As(err, &le) {
			t.Errorf("%s: parsed %q (err %v)", name, body, err)
		}
	}
	_, err := Parse([]byte(good + "junk\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Errorf("the error names the line: %v", err)
	}
}

func TestLookupTTL(t *testing.T) {
	es := []Entry{receipt("old", 1_000, "sent", 0), claim("fly", 5_000, 9_000, 1)}
	now := int64(1_000) + TTLMS
	if st, e := Lookup(es, "old", now); st != Answered || e.Slot != "old" {
		t.Errorf("at exactly the TTL: %v", st)
	}
	if st, _ := Lookup(es, "old", now+1); st != Free {
		t.Errorf("past the TTL: %v, want Free", st)
	}
	if st, _ := Lookup(es, "fly", now+1); st != Claimed {
		t.Errorf("a claim: %v", st)
	}
	if st, e := Lookup(es, "none", now); st != Free || e != nil {
		t.Errorf("no entry: %v %v", st, e)
	}
	// A receipt past its TTL is still listed: eviction is by size only.
	if rs := Receipts(Evict(es, Keep), ""); len(rs) != 1 || rs[0].Slot != "old" {
		t.Errorf("listed: %+v", rs)
	}
}

func TestSettle(t *testing.T) {
	es := []Entry{claim("dead", 10, 1_000_000, 111), claim("live", 10, 1_000_000, 222), claim("late", 10, 500, 222), receipt("r", 10, "sent", 0)}
	alive := func(pid int) bool { return pid == 222 }
	out, changed := Settle(es, 1_000, alive)
	if !changed {
		t.Fatal("nothing settled")
	}
	for _, slot := range []string{"dead", "late"} {
		st, e := Lookup(out, slot, 1_000)
		if st != Answered || *e.Outcome != "error" || *e.ExitCode != 1 || *e.Reason != ReasonFiredUnknown || e.AtMS != 1_000 || e.Nonce != "n-"+slot {
			t.Errorf("%s settled to %+v", slot, e)
		}
	}
	if st, _ := Lookup(out, "live", 1_000); st != Claimed {
		t.Errorf("a live claim within its deadline was settled")
	}
	if _, changed := Settle(out, 1_000, alive); changed {
		t.Errorf("settling twice changed something")
	}
}

func TestFinishAndRelease(t *testing.T) {
	es := []Entry{claim("s", 10, 99, 1), receipt("other", 5, "sent", 0)}
	done := Done("s", "n-s", Receipt{Pane: "%5", Action: "approve", AtMS: 20, Outcome: "sent"})
	out, ok := Finish(es, done)
	if !ok || len(out) != 2 || out[1].Slot != "s" || out[1].InFlight() {
		t.Fatalf("finish: %v %+v", ok, out)
	}
	// Another dispatch's slot is not overwritten.
	if _, ok := Finish(out, Done("s", "someone-else", Receipt{Action: "deny", AtMS: 30, Outcome: "sent"})); ok {
		t.Errorf("finished over another dispatch's receipt")
	}
	// A claim that was settled to fired-unknown is still this dispatch's.
	settled, _ := Settle(es, 1_000, func(int) bool { return false })
	if out, ok := Finish(settled, done); !ok || *out[len(out)-1].Outcome != "sent" {
		t.Errorf("finish after settle: %v", ok)
	}
	// Release drops only this dispatch's claim.
	if out := Release(es, "s", "wrong"); len(out) != 2 {
		t.Errorf("released another nonce's claim")
	}
	if out := Release(es, "s", "n-s"); len(out) != 1 || out[0].Slot != "other" {
		t.Errorf("release: %+v", out)
	}
	if out := Release(Put(es, done), "s", "n-s"); len(out) != 2 {
		t.Errorf("release dropped a receipt")
	}
}

func TestEvictKeepsTheNewest(t *testing.T) {
	var es []Entry
	for i := 0; i < 10; i++ {
		es = append(es, receipt("r"+strconv.Itoa(i), int64(100-i), "sent", 0)) // older further down the file
	}
	es = append(es, claim("fly", 1, 99, 1))
	out := Evict(es, 4)
	var slots []string
	for _, e := range out {
		slots = append(slots, e.Slot)
	}
	if got := strings.Join(slots, " "); got != "r0 r1 r2 r3 fly" {
		t.Errorf("evicted to %s", got)
	}
	if rs := Receipts(out, ""); rs[0].Slot != "r3" || rs[3].Slot != "r0" {
		t.Errorf("receipts are listed oldest first: %+v", rs)
	}
	if rs := Receipts(out, "r2"); len(rs) != 1 || rs[0].Slot != "r2" {
		t.Errorf("--slot: %+v", rs)
	}
	if len(Evict(es, Keep)) != len(es) {
		t.Errorf("evicted below the cap")
	}
}

func TestCheckID(t *testing.T) {
	for _, ok := range []string{"approve:%5:1700000000000", "x", "phone 2", "é", strings.Repeat("a", MaxID)} {
		if err := CheckID("--slot", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a\tb", "a\nb", "\x1b[1m", "\u0085", string([]byte{0xff}), strings.Repeat("a", MaxID+1)} {
		if err := CheckID("--slot", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func newStore(t *testing.T, now *int64) *Store {
	return &Store{Dir: filepath.Join(t.TempDir(), "tma"), Now: func() int64 { return *now }}
}

func TestStoreClaimFinishRelease(t *testing.T) {
	now := int64(1_000)
	s := newStore(t, &now)
	c := Entry{Slot: "s", Action: "approve", Pane: "%5", Nonce: "n1", PID: os.Getpid(), DeadlineMS: 100_000}
	got, err := s.Claim(c)
	if err != nil || got.State != Free {
		t.Fatalf("claim: %v %+v", err, got)
	}
	st, _ := os.Stat(s.Path())
	dst, _ := os.Stat(s.Dir)
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Errorf("modes: ledger %v dir %v", st.Mode().Perm(), dst.Mode().Perm())
	}
	c2 := c
	c2.Nonce = "n2"
	if got, _ = s.Claim(c2); got.State != Claimed || got.Entry.Nonce != "n1" {
		t.Errorf("second claim: %+v", got)
	}
	if err := s.Release("s", "n1"); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Claim(c2); got.State != Free {
		t.Fatalf("claim after release: %+v", got)
	}
	now = 2_000
	if ok, err := s.Finish(Done("s", "n2", Receipt{Pane: "%5", Action: "approve", AtMS: now, Outcome: "sent"})); !ok || err != nil {
		t.Fatalf("finish: %v %v", ok, err)
	}
	if got, _ = s.Claim(c); got.State != Answered || *got.Entry.Outcome != "sent" || got.Entry.Nonce != "n2" {
		t.Errorf("replay: %+v", got)
	}
	es, err := Read(s.Path())
	if err != nil || len(Receipts(es, "")) != 1 {
		t.Errorf("read: %v %+v", err, es)
	}
	// Past the TTL the slot fires again.
	now += TTLMS + 1
	if got, _ = s.Claim(c); got.State != Free {
		t.Errorf("past the TTL: %+v", got)
	}
	// Temp files do not linger.
	ents, _ := os.ReadDir(s.Dir)
	if len(ents) != 2 {
		t.Errorf("runtime dir holds %d entries, want the ledger and its lock", len(ents))
	}
}

func TestStoreSettlesADeadClaimer(t *testing.T) {
	now := int64(1_000)
	s := newStore(t, &now)
	s.Alive = func(pid int) bool { return pid != 4242 }
	if _, err := s.Claim(Entry{Slot: "s", Action: "approve", Nonce: "n1", PID: 4242, DeadlineMS: 100_000}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Claim(Entry{Slot: "s", Action: "approve", Nonce: "n2", PID: 1, DeadlineMS: 100_000})
	if err != nil || got.State != Answered || *got.Entry.Reason != ReasonFiredUnknown {
		t.Errorf("a dead claimer's slot: %v %+v", err, got)
	}
}

func TestStoreTornAndUnsafe(t *testing.T) {
	now := int64(1_000)
	s := newStore(t, &now)
	if err := Ensure(s.Dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), []byte("{\"v\":1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Claim(Entry{Slot: "s", Action: "a", Nonce: "n", PID: 1, DeadlineMS: 5})
	var torn *TornError
	if !errors.As(err, &torn) || !strings.Contains(err.Error(), s.Path()) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("torn ledger: %v", err)
	}
	if b, _ := os.ReadFile(s.Path()); string(b) != "{\"v\":1\n" {
		t.Errorf("a torn ledger was rewritten: %q", b)
	}
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Ensure(open); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Errorf("a 0755 runtime dir: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(s.Dir, link); err != nil {
		t.Fatal(err)
	}
	if err := Ensure(link); err == nil {
		t.Errorf("a symlinked runtime dir was accepted")
	}
}

func TestRuntimeDir(t *testing.T) {
	env := map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}
	get := func(k string) string { return env[k] }
	if got := RuntimeDir(get); got != "/run/user/1000/tma" {
		t.Errorf("XDG: %s", got)
	}
	env["XDG_RUNTIME_DIR"] = "relative"
	if got := RuntimeDir(get); got != "/tmp/tma-"+strconv.Itoa(os.Getuid()) {
		t.Errorf("fallback: %s", got)
	}
}

// TestStoreOneClaimAmongMany: concurrent claims on one slot (each its own
// open file, as separate processes have) let exactly one through.
func TestStoreOneClaimAmongMany(t *testing.T) {
	now := int64(1_000)
	s := newStore(t, &now)
	var wg sync.WaitGroup
	var mu sync.Mutex
	free := 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got, err := s.Claim(Entry{Slot: "s", Action: "approve", Nonce: "n" + strconv.Itoa(i), PID: os.Getpid(), DeadlineMS: 100_000})
			if err != nil {
				t.Error(err)
				return
			}
			if got.State == Free {
				mu.Lock()
				free++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if free != 1 {
		t.Errorf("%d claims got the slot, want 1", free)
	}
}
