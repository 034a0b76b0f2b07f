package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tmaproject/tma/manifests"
)

// Set is one load's agent manifests: the bundled ones and the user files,
// each built or decoded on first use and at most once. A filter folds the
// few agents on screen, a hook the one it fires for; decoding all of them
// was most of a short process's time. A Set is safe for concurrent use.
type Set struct {
	mu        sync.Mutex
	entries   []*entry // sorted by name
	all       []*Agent // All's answer, once every entry is resolved
	problems  []Problem
	onProblem func(Problem)
	disabled  map[string]bool
	extra     map[string][]string
}

// entry is one agent name and where its manifest comes from.
type entry struct {
	name     string
	file     string // a user manifest to decode; "" for none
	bundled  bool   // a bundled manifest backs the name (and replaces a broken file)
	resolved bool
	agent    *Agent // nil once resolved: disabled, or nothing loadable
}

// Problem is a manifest file that was skipped, with the reason.
type Problem = manifests.Problem

// LoadOptions says where manifests come from.
type LoadOptions struct {
	// UserDir holds user manifests (<stem>.toml) that add agents or shadow bundled ones by
	// stem; empty means none. A missing directory is not an error.
	UserDir string
	// ManifestDir, when non-empty, is a closed set: exactly the manifests in that directory,
	// with neither the bundled ones nor UserDir.
	ManifestDir string
	// OnProblem, when set, hears each skipped file as the set first reads it (a user file is
	// read when its agent is first asked for).
	OnProblem func(Problem)
}

// DefaultUserDir returns $XDG_CONFIG_HOME/tma/agents, else ~/.config/tma/agents; empty when
// neither can be found.
func DefaultUserDir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "tma", "agents")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "tma", "agents")
	}
	return ""
}

// Dir is the directory whose <stem>.toml files a load with these options reads, "" for none:
// what a long-running reader watches for changes.
func (o LoadOptions) Dir() string {
	if o.ManifestDir != "" {
		return o.ManifestDir
	}
	return o.UserDir
}

// Load lists the manifests the options name and decodes none of them: the bundled ones, then
// the user directory, where a file adds an agent or replaces the bundled one of the same stem.
// A user manifest that fails to read or parse is skipped and recorded in Problems (a bundled
// one of its stem stands in); only a missing or unreadable ManifestDir is an error.
func Load(o LoadOptions) (*Set, error) {
	s := &Set{onProblem: o.OnProblem}
	byName := map[string]*entry{}
	if o.ManifestDir == "" {
		for _, n := range bundledNames {
			byName[n] = &entry{name: n, bundled: true}
		}
	}
	if dir := o.Dir(); dir != "" {
		names, err := userFiles(dir)
		switch {
		case err == nil:
		case o.ManifestDir != "":
			return nil, fmt.Errorf("manifest dir: %w", err)
		case !errors.Is(err, fs.ErrNotExist):
			s.problem(Problem{File: dir, Err: err})
		}
		for _, n := range names {
			e := byName[n]
			if e == nil {
				e = &entry{name: n}
				byName[n] = e
			}
			e.file = filepath.Join(dir, n+".toml")
		}
	}
	for _, e := range byName {
		s.entries = append(s.entries, e)
	}
	slices.SortFunc(s.entries, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	return s, nil
}

// userFiles lists the stems of dir's manifests in name order; dotfiles and subdirectories are
// not manifests.
func userFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if stem, ok := manifests.Stem(e); ok {
			out = append(out, stem)
		}
	}
	return out, nil
}

//go:generate go test -tags manifestgen -run ^TestGenerated$ . -args -update

// Bundled returns fresh copies of the manifests compiled into the binary, sorted by name. They
// are Go values generated from manifests/agents (bundled_gen.go); the error is kept for the
// callers that loaded them from TOML and is always nil.
func Bundled() ([]*Agent, error) {
	out := make([]*Agent, len(bundledNames))
	for i, n := range bundledNames {
		out[i] = bundledAgent(n)
	}
	return out, nil
}

func (s *Set) problem(p Problem) {
	s.problems = append(s.problems, p)
	if s.onProblem != nil {
		s.onProblem(p)
	}
}

func (s *Set) find(name string) *entry {
	i, ok := slices.BinarySearchFunc(s.entries, name, func(e *entry, n string) int { return strings.Compare(e.name, n) })
	if !ok {
		return nil
	}
	return s.entries[i]
}

// resolve builds or decodes e's manifest, once.
func (s *Set) resolve(e *entry) *Agent {
	if e.resolved {
		return e.agent
	}
	e.resolved = true
	var a *Agent
	if e.file != "" {
		data, err := os.ReadFile(e.file)
		if err == nil {
			a, err = Parse(e.name, e.file, data)
		}
		if err != nil {
			s.problem(Problem{File: e.file, Err: err})
		}
	}
	if a == nil && e.bundled {
		a = bundledAgent(e.name)
	}
	if a != nil && !s.disabled[e.name] {
		a.ProcessNames = withNames(a.ProcessNames, s.extra[e.name])
		e.agent = a
	}
	return e.agent
}

// Get returns the agent called name, or nil.
func (s *Set) Get(name string) *Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.find(name)
	if e == nil {
		return nil
	}
	return s.resolve(e)
}

// All returns every agent, sorted by name, decoding whatever was not yet: what identity
// needs (every agent's process names and title patterns), and doctor.
func (s *Set) All() []*Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.all == nil {
		s.all = []*Agent{}
		for _, e := range s.entries {
			if a := s.resolve(e); a != nil {
				s.all = append(s.all, a)
			}
		}
	}
	return s.all
}

// Problems returns the skipped files, reading every user file to know.
func (s *Set) Problems() []Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.entries {
		if e.file != "" {
			s.resolve(e)
		}
	}
	return slices.Clone(s.problems)
}

// Claims reports whether one of names (a process's, as proc.Table.Names
// gives them) is some agent's process name that is not a runtime's: a
// process scan identifies as that agent whatever the pane's title says
// (Agent.Identifies). It is the walk's proc.Stop.
func (s *Set) Claims(names []string) bool {
	if s == nil {
		return false
	}
	for _, n := range names {
		if IsRuntime(n) {
			continue
		}
		for _, a := range s.All() {
			if a.MatchesProcess(n) {
				return true
			}
		}
	}
	return false
}

// Disabled reports whether [[agent]] enabled = false turned name off: a pane
// its hooks registered is then no agent's either.
func (s *Set) Disabled(name string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disabled[name]
}

// Override applies one config [[agent]] entry: enabled=false removes the agent from the set;
// extraProcessNames are added to its identity match. An unknown name is ignored.
func (s *Set) Override(name string, enabled bool, extraProcessNames []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.find(name)
	if e == nil {
		return
	}
	if !enabled {
		if s.disabled == nil {
			s.disabled = map[string]bool{}
		}
		s.disabled[name] = true
		e.agent, s.all = nil, nil
		return
	}
	if s.extra == nil {
		s.extra = map[string][]string{}
	}
	s.extra[name] = append(s.extra[name], extraProcessNames...)
	if e.agent != nil {
		e.agent.ProcessNames = withNames(e.agent.ProcessNames, extraProcessNames)
	}
}

// withNames is names plus the non-empty extra ones it lacks, never sharing names' array.
func withNames(names, extra []string) []string {
	if len(extra) == 0 {
		return names
	}
	out := slices.Clone(names)
	for _, n := range extra {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
