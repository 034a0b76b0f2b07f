package manifest

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// Regex is a manifest pattern compiled on its first use: a run evaluates
// the rules of the few agents on screen, and compiling every pattern of
// every manifest up front was a large part of a short process's time.
type Regex struct {
	src  string // as compiled: a regex leaf carries its (?m) here
	once sync.Once
	re   *regexp.Regexp
}

// checkRegex validates src the way regexp.Compile would, without building
// the program: regexp.Compile fails only where syntax.Parse does, so the
// later compile cannot.
func checkRegex(src string) (*Regex, error) {
	if _, err := syntax.Parse(src, syntax.Perl); err != nil {
		return nil, err
	}
	return lazyRegex(src), nil
}

// lazyRegex wraps a pattern already known to be valid (checked by the
// parse, or generated from a checked manifest).
func lazyRegex(src string) *Regex { return &Regex{src: src} }

func (r *Regex) get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

// String is the pattern as compiled.
func (r *Regex) String() string { return r.src }

// MatchString reports whether s contains a match.
func (r *Regex) MatchString(s string) bool { return r.get().MatchString(s) }

// FindStringIndex locates the leftmost match in s, nil when there is none.
func (r *Regex) FindStringIndex(s string) []int { return r.get().FindStringIndex(s) }
