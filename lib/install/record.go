package install

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/statefile"
)

// Record is install-state.toml in tma's config dir: what install-hooks wired
// and when. --check reads it to tell a tmux hook that was never installed
// (missing) from one a server restart dropped (wiped); doctor and the daemon
// read it the same way.
type Record struct {
	Version int                     `toml:"version"`
	Agents  map[string]*AgentRecord `toml:"agents,omitempty"`
	Tmux    []*TmuxRecord           `toml:"tmux,omitempty"`
}

// AgentRecord is one wired agent.
type AgentRecord struct {
	InstalledAt time.Time `toml:"installed_at"`
	Wrapper     string    `toml:"wrapper"` // the reference written
	Files       []string  `toml:"files"`
	Created     []string  `toml:"created,omitempty"` // files install created
	// Kept are the user's empty containers install filled, which uninstall
	// leaves as they were.
	Kept []Kept `toml:"kept,omitempty"`
}

// Keep adds ks to the agent's kept values; one already recorded for the
// same file and keys is replaced (the newer install saw the user's bytes).
func (a *AgentRecord) Keep(ks []Kept) {
	for _, k := range ks {
		i := 0
		for ; i < len(a.Kept); i++ {
			if o := a.Kept[i]; o.File == k.File && keyOf(o.Keys) == keyOf(k.Keys) {
				break
			}
		}
		if i < len(a.Kept) {
			a.Kept[i] = k
		} else {
			a.Kept = append(a.Kept, k)
		}
	}
}

// TmuxRecord is one server's tmux hooks, by socket path.
type TmuxRecord struct {
	Socket      string    `toml:"socket"`
	Hooks       []string  `toml:"hooks"`
	Tma         string    `toml:"tma"`
	InstalledAt time.Time `toml:"installed_at"`
}

const recordHeader = "# tma install-hooks record: what was wired, and when. Written by tma; read by\n" +
	"# `tma install-hooks --check` and `tma doctor`. Do not edit.\n"

// RecordPath is install-state.toml in tma's config dir.
func (e Env) RecordPath() string { return filepath.Join(e.ConfigDir(), "install-state.toml") }

// StatuslinePath is statusline-state.toml in tma's config dir.
func (e Env) StatuslinePath() string { return filepath.Join(e.ConfigDir(), "statusline-state.toml") }

// LoadRecord reads the record; a missing one is empty.
func LoadRecord(path string) (*Record, error) {
	r := &Record{Version: 1, Agents: map[string]*AgentRecord{}}
	if _, err := statefile.Load(path, r); err != nil {
		return nil, err
	}
	if r.Agents == nil {
		r.Agents = map[string]*AgentRecord{}
	}
	return r, nil
}

// Save writes the record atomically, 0600; a file that already holds
// exactly these bytes is left alone.
func (r *Record) Save(path string) error {
	r.Version = 1
	sort.Slice(r.Tmux, func(i, j int) bool { return r.Tmux[i].Socket < r.Tmux[j].Socket })
	data, err := statefile.Encode(recordHeader, r)
	if err != nil {
		return err
	}
	return writeIfChanged(path, data)
}

// TmuxFor returns the server's entry, nil when none.
func (r *Record) TmuxFor(socket string) *TmuxRecord {
	for _, t := range r.Tmux {
		if t.Socket == socket {
			return t
		}
	}
	return nil
}

// SetTmux records (or, with no hooks, forgets) a server's hooks.
func (r *Record) SetTmux(socket, tma string, hooks []string, at time.Time) {
	var keep []*TmuxRecord
	var prev *TmuxRecord
	for _, t := range r.Tmux {
		if t.Socket != socket {
			keep = append(keep, t)
		} else {
			prev = t
		}
	}
	if len(hooks) > 0 {
		// The same hooks for the same tma keep their time: a re-run that
		// changed nothing leaves the record as it was.
		if prev != nil && prev.Tma == tma && strings.Join(prev.Hooks, " ") == strings.Join(hooks, " ") && !prev.InstalledAt.IsZero() {
			at = prev.InstalledAt
		}
		keep = append(keep, &TmuxRecord{Socket: socket, Hooks: hooks, Tma: tma, InstalledAt: at.UTC().Truncate(time.Second)})
	}
	r.Tmux = keep
}

// StatuslineRecord is statusline-state.toml: the agents that opted into the
// statusline context shim.
type StatuslineRecord struct {
	Agents []string `toml:"agents"`
}

// LoadStatusline reads the statusline record; missing is empty.
func LoadStatusline(path string) (*StatuslineRecord, error) {
	r := &StatuslineRecord{}
	if _, err := statefile.Load(path, r); err != nil {
		return nil, err
	}
	return r, nil
}

// Has reports whether agent opted in.
func (s *StatuslineRecord) Has(agent string) bool {
	for _, a := range s.Agents {
		if a == agent {
			return true
		}
	}
	return false
}

// Set adds or removes agent; it reports whether anything changed.
func (s *StatuslineRecord) Set(agent string, on bool) bool {
	if s.Has(agent) == on {
		return false
	}
	if on {
		s.Agents = append(s.Agents, agent)
		sort.Strings(s.Agents)
		return true
	}
	var keep []string
	for _, a := range s.Agents {
		if a != agent {
			keep = append(keep, a)
		}
	}
	s.Agents = keep
	return true
}

// Save writes the statusline record atomically, 0600, unless the file
// already holds exactly these bytes.
func (s *StatuslineRecord) Save(path string) error {
	if s.Agents == nil {
		s.Agents = []string{}
	}
	data, err := statefile.Encode("# Agents that opted into tma's statusline context shim (tma install-hooks <agent>\n# --statusline); --no-statusline removes one. Written by tma.\n", s)
	if err != nil {
		return err
	}
	return writeIfChanged(path, data)
}

// writeIfChanged writes one of tma's own records (0600) unless it already
// holds data.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return WriteAtomic(path, data, 0o600)
}
