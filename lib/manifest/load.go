package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tmaproject/tma/manifests"
)

// Set is the loaded manifests, sorted by Name, and the user manifests that were skipped.
type Set struct {
	Agents   []*Agent
	Problems []Problem
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

// Load reads the bundled manifests and then the user directory, where a file adds an agent
// or replaces the bundled one of the same stem. A user manifest that fails to read or parse
// is skipped and recorded in Problems; a broken bundled manifest is an error (a build bug).
func Load(o LoadOptions) (*Set, error) {
	byName := map[string]*Agent{}
	s := &Set{}
	if o.ManifestDir != "" {
		if err := s.loadDir(o.ManifestDir, byName, true); err != nil {
			return nil, err
		}
	} else {
		bundled, err := Bundled()
		if err != nil {
			return nil, err
		}
		for _, a := range bundled {
			byName[a.Name] = a
		}
		if o.UserDir != "" {
			if err := s.loadDir(o.UserDir, byName, false); err != nil {
				return nil, err
			}
		}
	}
	for _, a := range byName {
		s.Agents = append(s.Agents, a)
	}
	slices.SortFunc(s.Agents, func(a, b *Agent) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// Bundled parses the manifests compiled into the binary, sorted by name.
func Bundled() ([]*Agent, error) {
	out, err := manifests.ParseBundled(manifests.Agents, "agents", func(f manifests.File) (*Agent, error) {
		a, err := parseFile(f)
		if err == nil {
			a.Bundled = true
		}
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("bundled manifests: %w", err)
	}
	return out, nil
}

func parseFile(f manifests.File) (*Agent, error) { return Parse(f.Stem, f.Path, f.Data) }

// loadDir parses every <stem>.toml in dir into byName, recording broken files as problems.
// A missing dir is an error only when required.
func (s *Set) loadDir(dir string, byName map[string]*Agent, required bool) error {
	files, err := manifests.Dir(dir)
	if err != nil {
		if !required && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if !required {
			s.Problems = append(s.Problems, Problem{File: dir, Err: err})
			return nil
		}
		return fmt.Errorf("manifest dir: %w", err)
	}
	parsed, probs := manifests.ParseEach(files, parseFile)
	s.Problems = append(s.Problems, probs...)
	for _, a := range parsed {
		byName[a.Name] = a
	}
	return nil
}

// Get returns the agent called name, or nil.
func (s *Set) Get(name string) *Agent {
	i, ok := slices.BinarySearchFunc(s.Agents, name, func(a *Agent, n string) int { return strings.Compare(a.Name, n) })
	if !ok {
		return nil
	}
	return s.Agents[i]
}

// Override applies one config [[agent]] entry: enabled=false removes the agent from the set;
// extraProcessNames are added to its identity match. An unknown name is ignored.
func (s *Set) Override(name string, enabled bool, extraProcessNames []string) {
	a := s.Get(name)
	if a == nil {
		return
	}
	if !enabled {
		s.Agents = slices.DeleteFunc(s.Agents, func(x *Agent) bool { return x == a })
		return
	}
	names := slices.Clone(a.ProcessNames)
	for _, n := range extraProcessNames {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	a.ProcessNames = names
}
