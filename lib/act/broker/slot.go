package broker

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/act/ledger"
)

// ClaimSlackMS is how long a claim may stay in flight before another
// dispatch on its slot settles it as fired-unknown (an exec action adds
// its timeout_ms). A claimer that dies is settled at once: the ledger is
// per host, so its pid says whether it lives.
const ClaimSlackMS = 120_000

// slotPoll is how often a dispatch waiting on another's claim re-reads the
// ledger.
const slotPoll = 50 * time.Millisecond

// slotClaim is this invocation's claim on its slot.
type slotClaim struct {
	store *ledger.Store
	entry ledger.Entry
	done  bool
}

func (b *Broker) store() *ledger.Store {
	return &ledger.Store{Dir: ledger.RuntimeDir(b.Getenv), Now: b.Now}
}

// claimSlot takes the --slot before any fire. done reports that the
// invocation ends here with code: a receipt replayed, a torn ledger (1), or
// another dispatch's claim that stayed in flight past its deadline (a
// locked refusal, 5, which a retry fixes). While another dispatch on the
// slot is in flight, it waits for that one's receipt.
func (b *Broker) claimSlot(a *act.Action) (code int, done bool) {
	c := &b.Req
	st := b.store()
	now := b.Now()
	deadline := now + ClaimSlackMS
	if a.Kind == act.KindExec {
		deadline += a.TimeoutMS
	}
	e := ledger.Entry{Slot: b.Req.Slot, Action: a.Name, Nonce: nonce(), PID: os.Getpid(), DeadlineMS: deadline}
	if c.Pane != "" {
		e.Pane = c.Pane
	} else if !b.Req.Selected {
		e.Pane = b.defaultPane()
	}
	if b.Req.Device != "" {
		d := b.Req.Device
		e.Device = &d
	}
	waiting := false
	for {
		got, err := st.Claim(e)
		if err != nil {
			return b.ledgerError(err), true
		}
		switch got.State {
		case ledger.Free:
			b.slot = &slotClaim{store: st, entry: got.Entry}
			return 0, false
		case ledger.Answered:
			return b.replay(got.Entry), true
		}
		other := got.Entry
		if !waiting {
			waiting = true
			b.note("slot %s is in flight (%s, pid %d): waiting for its receipt", b.Req.Slot, other.Action, other.PID)
		}
		if b.Now() > other.DeadlineMS+1000 {
			// Settle turns an expired claim into a receipt; reaching here
			// means the ledger keeps answering with a claim (a clock step).
			r := act.NewResult(a.Name, other.Pane, act.OutcomeRefused, act.ReasonLocked)
			return b.report(a, []act.Result{r}, map[string]string{other.Pane: "slot " + b.Req.Slot + " is still in flight"}), true
		}
		time.Sleep(slotPoll)
	}
}

// ledgerError reports a ledger that cannot be read or written: exit 1,
// naming the file.
func (b *Broker) ledgerError(err error) int {
	var torn *ledger.TornError
	if errors.As(err, &torn) {
		b.Errorf("%v\nhint: nothing was sent; remove the file to start a new ledger (its receipts are lost)", err)
		return act.ExitError
	}
	b.Errorf("receipt ledger: %v", err)
	return act.ExitError
}

// replay prints a receipt as this invocation's result, cached, and returns
// its exit code. Nothing is sent and nothing is logged: it is not a fire.
func (b *Broker) replay(e ledger.Entry) int {
	rc := e.Receipt()
	cached := true
	r := act.Result{Schema: 1, Action: rc.Action, Pane: rc.Pane, Outcome: rc.Outcome, ExitCode: rc.ExitCode, Reason: rc.Reason, Cached: &cached}
	if b.Req.JSON {
		if out, err := act.Marshal(r); err == nil {
			fmt.Fprintln(b.Stdout, string(out))
		}
	}
	age := time.Duration(max(b.Now()-rc.AtMS, 0)) * time.Millisecond
	fmt.Fprintf(b.Stderr, "tma: cached receipt for slot %s: %s on %s: %s (%s ago; nothing sent)\n",
		b.Req.Slot, rc.Action, paneName(rc.Pane), outcomeText(r), age.Round(time.Second))
	return rc.ExitCode
}

// settleSlot ends the claim with this invocation's result: a locked
// refusal, and an error that provably sent nothing (a refused connect to
// an agent's API), free the slot (nothing happened, and a retry may pass);
// anything else is the slot's receipt, an error recorded as fired-unknown.
func (b *Broker) settleSlot(r act.Result) {
	s := b.slot
	if s == nil || s.done {
		return
	}
	s.done = true
	if r.Outcome == act.OutcomeRefused && r.ReasonString() == act.ReasonLocked || r.Outcome == act.OutcomeError && r.Unsent {
		if err := s.store.Release(s.entry.Slot, s.entry.Nonce); err != nil {
			b.note("warning: slot %s was not released: %v", s.entry.Slot, err)
		}
		return
	}
	rc := ledger.Receipt{Pane: r.Pane, Action: r.Action, Device: s.entry.Device, AtMS: b.Now(),
		Outcome: r.Outcome, ExitCode: r.ExitCode, Reason: r.Reason}
	ok, err := s.store.Finish(ledger.Done(s.entry.Slot, s.entry.Nonce, rc))
	switch {
	case err != nil:
		b.note("warning: the receipt for slot %s was not recorded: %v", s.entry.Slot, err)
	case !ok:
		b.note("warning: the receipt for slot %s was not recorded: another dispatch owns the slot now", s.entry.Slot)
	}
}

// releaseSlot frees a claim the invocation ended without a result for (a
// usage error after the claim, no server): nothing was sent.
func (b *Broker) releaseSlot() {
	s := b.slot
	if s == nil || s.done {
		return
	}
	s.done = true
	if err := s.store.Release(s.entry.Slot, s.entry.Nonce); err != nil {
		b.note("warning: slot %s was not released: %v", s.entry.Slot, err)
	}
}
