package act

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/tmaproject/tma/manifests"
)

// Set is the loaded actions, sorted by name, and the user files that were
// skipped.
type Set struct {
	Actions  []*Action
	Problems []Problem
}

// Problem is an action file that was skipped, with the reason.
type Problem = manifests.Problem

// Load reads the bundled actions, then userDir (<config dir>/actions), where
// a file adds an action or replaces the bundled one of the same stem. A user
// file that fails to read or parse is skipped and recorded; a broken bundled
// one is an error (a build bug). A missing userDir is no error.
func Load(userDir string) (*Set, error) {
	byName := map[string]*Action{}
	bundled, err := Bundled()
	if err != nil {
		return nil, err
	}
	for _, a := range bundled {
		byName[a.Name] = a
	}
	s := &Set{}
	if userDir != "" {
		files, err := manifests.Dir(userDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.Problems = append(s.Problems, Problem{File: userDir, Err: err})
		}
		parsed, probs := manifests.ParseEach(files, parseFile)
		s.Problems = append(s.Problems, probs...)
		for _, a := range parsed {
			byName[a.Name] = a
		}
	}
	for _, a := range byName {
		s.Actions = append(s.Actions, a)
	}
	slices.SortFunc(s.Actions, func(a, b *Action) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// Bundled parses the actions compiled into the binary, sorted by name.
func Bundled() ([]*Action, error) {
	out, err := manifests.ParseBundled(manifests.Actions, "actions", func(f manifests.File) (*Action, error) {
		a, err := parseFile(f)
		if err == nil {
			a.Bundled = true
		}
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("bundled actions: %w", err)
	}
	return out, nil
}

func parseFile(f manifests.File) (*Action, error) { return Parse(f.Stem, f.Path, f.Data) }

// Get returns the action called name, or nil.
func (s *Set) Get(name string) *Action {
	for _, a := range s.Actions {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Names lists the loaded actions' names.
func (s *Set) Names() []string {
	out := make([]string, len(s.Actions))
	for i, a := range s.Actions {
		out[i] = a.Name
	}
	return out
}

// UnknownAgents lists, per action, the agent names it mentions that known
// does not hold ("<action>: names unknown agent \"x\""), for doctor.
func (s *Set) UnknownAgents(known func(string) bool) []string {
	var out []string
	for _, a := range s.Actions {
		for _, n := range a.NamedAgents() {
			if !known(n) {
				out = append(out, fmt.Sprintf("%s: names unknown agent %q", a.Name, n))
			}
		}
	}
	return out
}
