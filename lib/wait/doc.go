// Package wait decides, one observed cycle at a time, whether a `tma wait`
// is satisfied, still waiting, or over; it is pure (rows and pane ids in,
// a decision out).
package wait
