package common

import (
	"fmt"
	"time"
)

// ReloadEvery is how often a long-running filter re-reads its config and
// manifests (a follow pipeline behind `tma wait`, `tma subscribe`).
const ReloadEvery = 2 * time.Second

// Reloader keeps a loaded config and manifest set fresh for a long-running
// filter. A reload that fails keeps the previous pair and names the failure
// on stderr once per breakage, so a mid-edit save is quiet but a file left
// broken is not.
type Reloader struct {
	g      *Globals
	e      *Env
	cur    *Loaded
	at     time.Time
	broken string
}

// NewReloader loads once; the error is the first load's.
func (g *Globals) NewReloader(e *Env) (*Reloader, error) {
	l, err := g.Load(e)
	if err != nil {
		return nil, err
	}
	return &Reloader{g: g, e: e, cur: l, at: time.Now()}, nil
}

// Get returns the current pair, reloading it when it is older than
// ReloadEvery.
func (r *Reloader) Get() *Loaded {
	if time.Since(r.at) < ReloadEvery {
		return r.cur
	}
	r.at = time.Now()
	l, err := r.g.Load(Quiet(r.e))
	if err != nil {
		if msg := err.Error(); msg != r.broken {
			r.broken = msg
			fmt.Fprintf(r.e.Stderr, "%s: warning: keeping the previous config and manifests: %v\n", r.e.Tool, err)
		}
		return r.cur
	}
	r.broken = ""
	r.cur = l
	return l
}

// Quiet is e with stderr discarded: for loads whose problems the caller
// reports itself (doctor's agents: line, a reload's one warning).
func Quiet(e *Env) *Env {
	q := *e
	q.Stderr = discard{}
	return &q
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
