package common

import (
	"fmt"

	"github.com/tmaproject/tma/lib/filestate"
)

// Reloader keeps a loaded config and manifest set fresh for a long-running
// filter (a follow pipeline behind `tma wait` or `tma subscribe`, the
// picker and watch). Each Get stats the files a load reads and loads again
// only when one was written, replaced, added or removed: an unchanged tick
// costs a few stat calls, and the manifests it already decoded stay
// decoded. A reload that fails keeps the previous pair and names the
// failure on stderr once per breakage, so a mid-edit save is quiet but a
// file left broken is not.
type Reloader struct {
	g      *Globals
	e      *Env
	cur    *Loaded
	seen   filestate.Snapshot
	broken string
}

// NewReloader loads once; the error is the first load's.
func (g *Globals) NewReloader(e *Env) (*Reloader, error) {
	// Taken before the load: a file changed while it ran is seen at the
	// next Get.
	seen := g.sources(e)
	l, err := g.Load(e)
	if err != nil {
		return nil, err
	}
	return &Reloader{g: g, e: e, cur: l, seen: seen}, nil
}

// Get returns the current pair, loading it again when a file it came from
// changed since the last look.
func (r *Reloader) Get() *Loaded {
	now := r.g.sources(r.e)
	if now.Equal(r.seen) {
		return r.cur
	}
	r.seen = now
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
	q.Stderr, q.quiet = discard{}, true
	return &q
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
