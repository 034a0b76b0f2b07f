package ledger

import (
	"strconv"
	"strings"
)

// Line is a receipt as one `tma receipts` text line: at_ms slot pane
// action outcome reason exit_code device, tab-separated, "-" for an absent
// field.
func (r Receipt) Line() string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	reason, device := "", ""
	if r.Reason != nil {
		reason = *r.Reason
	}
	if r.Device != nil {
		device = *r.Device
	}
	return strings.Join([]string{strconv.FormatInt(r.AtMS, 10), dash(r.Slot), dash(r.Pane), dash(r.Action),
		dash(r.Outcome), dash(reason), strconv.Itoa(r.ExitCode), dash(device)}, "\t")
}
