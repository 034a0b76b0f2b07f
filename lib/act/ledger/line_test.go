package ledger

import "testing"

func TestReceiptLine(t *testing.T) {
	reason, device := "locked", "phone"
	full := Receipt{Slot: "s1", Pane: "%3", Action: "approve", Device: &device, AtMS: 1700000000123, Outcome: "refused", ExitCode: 5, Reason: &reason}
	if got, want := full.Line(), "1700000000123\ts1\t%3\tapprove\trefused\tlocked\t5\tphone"; got != want {
		t.Errorf("full receipt: %q, want %q", got, want)
	}
	if got, want := (Receipt{Slot: "s2", AtMS: 1, Outcome: "sent"}).Line(), "1\ts2\t-\t-\tsent\t-\t0\t-"; got != want {
		t.Errorf("sparse receipt: %q, want %q", got, want)
	}
}
