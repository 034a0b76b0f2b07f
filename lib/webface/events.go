package webface

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/stream"
)

// pingEvery keeps a quiet stream's connection (and any proxy on the way)
// from timing it out.
const pingEvery = 15 * time.Second

// events is Server-Sent Events: "hello" once, "ready" after the first
// cycle (the differ's silent baseline), then one "transition" per
// `tma subscribe --events` record (the same differ), as the shared cycle
// sees it. The device is read from the store at every cycle; a revoked one
// gets "revoked" and the stream ends.
func (s *Server) events(w http.ResponseWriter, r *http.Request, d *device.Device) {
	fl, ok := w.(http.Flusher)
	if !ok {
		fail(w, http.StatusInternalServerError, "internal", "this connection cannot stream")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(event string, v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		fl.Flush()
		return err == nil
	}
	_, _ = fmt.Fprint(w, "retry: 1000\n\n")
	if !send("hello", map[string]any{"schema": 1, "device": d.Name, "interval_ms": s.opt.IntervalMS}) {
		return
	}
	s.h.Log("device %s: event stream opened", d.Name)
	defer s.h.Log("device %s: event stream closed", d.Name)
	ch, cancel := s.hub.subscribe()
	defer cancel()
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	var diff stream.Differ
	started := false
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.hub.done:
			return
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
			fl.Flush()
		case snap := <-ch:
			cur, status, _ := s.authorize(r)
			if cur == nil || !cur.Has(device.ScopeRead) {
				if status != http.StatusInternalServerError {
					s.h.Log("device %s: revoked; its event stream ends", d.Name)
					send("revoked", map[string]any{"schema": 1, "device": d.Name, "message": "this device is no longer paired with this host (revoked)"})
				}
				return
			}
			rows := make([]*record.Row, len(snap.Rows))
			for i := range snap.Rows {
				rows[i] = &record.Row{Row: snap.Rows[i]}
			}
			first := !started
			started = true
			for _, ev := range diff.Events(rows, snap.AtMS) {
				if !send("transition", ev) {
					return
				}
			}
			// The baseline is silent, so a client that read /agents
			// before it (from an older cycle) is told to read again:
			// from here on every change is a transition.
			if first && !send("ready", map[string]any{"schema": 1, "at_ms": snap.AtMS}) {
				return
			}
		}
	}
}
