package common

import (
	"fmt"
	"slices"

	"github.com/tmaproject/tma/lib/filestate"
	"github.com/tmaproject/tma/lib/manifest"
)

// Reloader keeps a loaded config and manifest set fresh for a long-running
// filter (a follow pipeline behind `tma wait` or `tma subscribe`, the
// picker and watch). Each Get stats the files a load reads and loads again
// only when one was written, replaced, added or removed: an unchanged tick
// costs a few stat calls, and the manifests it already decoded stay
// decoded. A reload that fails keeps the previous pair; each broken file
// (Problems) is named on stderr once, when it breaks, so a mid-edit save
// is quiet but a file left broken is not.
type Reloader struct {
	g        *Globals
	e        *Env
	cur      *Loaded
	seen     filestate.Snapshot
	problems []problem
	known    bool // problems is worked out (the first load's only when asked)
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

// Problems are what the pair Get hands out leaves out, one sentence per
// broken file as of the last Get, the file first: a config (or manifest
// set) that failed to load, the previous pair kept in its place, and every
// user manifest skipped because it does not parse, whichever of them are
// broken at once. A long-running surface shows them for as long as they
// last (the picker's header, watch's notices); nil when nothing is broken.
func (r *Reloader) Problems() []string {
	if !r.known {
		// The first load's, asked for: a user manifest is decoded when
		// its agent is first met, and a one-shot filter never asks.
		r.problems, r.known = skipped(r.cur.Manifests.Problems()), true
	}
	var out []string
	for _, p := range r.problems {
		out = append(out, p.show)
	}
	return out
}

// problem is one broken file: as a surface shows it, and as stderr says it
// when it breaks.
type problem struct{ show, warn string }

func kept(err error) problem {
	return problem{show: err.Error() + " (the previous config and manifests stay in use)",
		warn: "keeping the previous config and manifests: " + err.Error()}
}

func skipped(ps []manifest.Problem) []problem {
	var out []problem
	for _, p := range ps {
		out = append(out, problem{show: p.Err.Error() + " (manifest skipped)", warn: "manifest skipped: " + p.Err.Error()})
	}
	return out
}

// Get returns the current pair, loading it again when a file it came from
// changed since the last look.
func (r *Reloader) Get() *Loaded {
	now := r.g.sources(r.e)
	if now.Equal(r.seen) {
		return r.cur
	}
	r.seen = now
	was := r.Problems()
	l, err := r.g.Load(Quiet(r.e))
	var broken []problem
	if err != nil {
		broken = []problem{kept(err)}
		// The load stopped at the first broken file; the user manifests
		// are looked at on their own, so every broken file is named.
		if ms, merr := manifest.Load(r.g.manifestOptions(Quiet(r.e))); merr == nil {
			broken = append(broken, skipped(ms.Problems())...)
		}
	} else {
		r.cur = l
		broken = skipped(l.Manifests.Problems())
	}
	// Each breakage is said once, when it appears.
	for _, p := range broken {
		if !slices.Contains(was, p.show) {
			fmt.Fprintf(r.e.Stderr, "%s: warning: %s\n", r.e.Tool, p.warn)
		}
	}
	r.problems = broken
	return r.cur
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
