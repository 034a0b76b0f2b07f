package device

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/tmaproject/tma/lib/atomicfile"
)

// The four scopes, in the order they are printed.
const (
	ScopeRead   = "read"
	ScopeAnswer = "act:answer"
	ScopeSteer  = "act:steer"
	ScopeAlways = "act:always"
)

// Scopes is every scope, in print order.
var Scopes = []string{ScopeRead, ScopeAnswer, ScopeSteer, ScopeAlways}

// DefaultScopes is what a plain pair grants; OnlyScopes what pair --only
// grants. act:always is in neither: only an explicit grant adds it.
var (
	DefaultScopes = []string{ScopeRead, ScopeAnswer, ScopeSteer}
	OnlyScopes    = []string{ScopeRead}
)

// FileName is the store's name inside tma's config directory.
const FileName = "devices.toml"

// Device is one paired device.
type Device struct {
	Name       string   `toml:"name" json:"name"`
	ID         string   `toml:"id" json:"id"`
	Scopes     []string `toml:"scopes" json:"scopes"`
	PairedAtMS int64    `toml:"paired_at_ms" json:"paired_at_ms"`
}

// Has reports whether d holds scope.
func (d *Device) Has(scope string) bool { return slices.Contains(d.Scopes, scope) }

// Store is the decoded file.
type Store struct {
	Path    string
	Devices []Device
}

// Error is a store that failed to load or save.
type Error struct {
	Path string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("devices ")
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

var (
	decodeRE = regexp.MustCompile(`^line (\d+) \(last key "([^"]*)"\): (.*)$`)
	nameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)
	// An ssh fingerprint (SHA256:<base64>, MD5:<hex pairs>) or any other
	// token of the same alphabet: the id is written into a command="…"
	// line by hand, so nothing that needs quoting there is accepted.
	idRE = regexp.MustCompile(`^[A-Za-z0-9+/=:_.-]{1,128}$`)
)

// CheckName is the rule for a device name.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("invalid device name %q (letters, digits and . _ @ -, at most 64, starting with a letter or digit)", name)
	}
	return nil
}

// CheckID is the rule for a device id.
func CheckID(id string) error {
	if !idRE.MatchString(id) {
		return fmt.Errorf("invalid device id %q (an ssh key fingerprint such as SHA256:…, from ssh-keygen -lf)", id)
	}
	return nil
}

// CheckScope is the rule for a scope name.
func CheckScope(s string) error {
	if !slices.Contains(Scopes, s) {
		return fmt.Errorf("unknown scope %q (one of %s)", s, strings.Join(Scopes, ", "))
	}
	return nil
}

// Path is the store inside configDir.
func Path(configDir string) string { return filepath.Join(configDir, FileName) }

type file struct {
	Device []Device `toml:"device"`
}

// Load reads the store; a missing file is an empty store.
func Load(path string) (*Store, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Store{Path: path}, nil
	}
	if err != nil {
		return nil, &Error{Path: path, Msg: pathMsg(err)}
	}
	s, err := Parse(data)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
		}
		return nil, err
	}
	s.Path = path
	return s, nil
}

func pathMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse decodes a store's bytes. Errors are *Error without a Path.
func Parse(data []byte) (*Store, error) {
	var f file
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		msg := strings.TrimPrefix(err.Error(), "toml: ")
		if m := decodeRE.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, &Error{Line: line, Key: m[2], Msg: m[3]}
		}
		return nil, &Error{Msg: msg}
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, &Error{Key: u[0].String(), Msg: "unknown key"}
	}
	names, ids := map[string]bool{}, map[string]bool{}
	for i := range f.Device {
		d := &f.Device[i]
		key := func(k string) string { return fmt.Sprintf("device[%d].%s", i+1, k) }
		if d.Name == "" {
			return nil, &Error{Key: key("name"), Msg: "missing"}
		}
		if err := CheckName(d.Name); err != nil {
			return nil, &Error{Key: key("name"), Msg: err.Error()}
		}
		if d.ID == "" {
			return nil, &Error{Key: key("id"), Msg: "missing"}
		}
		if err := CheckID(d.ID); err != nil {
			return nil, &Error{Key: key("id"), Msg: err.Error()}
		}
		if names[d.Name] {
			return nil, &Error{Key: key("name"), Msg: fmt.Sprintf("device %q is listed twice", d.Name)}
		}
		if ids[d.ID] {
			return nil, &Error{Key: key("id"), Msg: fmt.Sprintf("id %s is listed twice", d.ID)}
		}
		names[d.Name], ids[d.ID] = true, true
		seen := map[string]bool{}
		for _, s := range d.Scopes {
			if err := CheckScope(s); err != nil {
				return nil, &Error{Key: key("scopes"), Msg: err.Error()}
			}
			if seen[s] {
				return nil, &Error{Key: key("scopes"), Msg: fmt.Sprintf("scope %q is listed twice", s)}
			}
			seen[s] = true
		}
		d.Scopes = Sorted(d.Scopes)
	}
	return &Store{Devices: f.Device}, nil
}

// Sorted returns scopes in print order.
func Sorted(scopes []string) []string {
	out := make([]string, 0, len(scopes))
	for _, s := range Scopes {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

// ByName is the device called name, nil when none is.
func (s *Store) ByName(name string) *Device {
	for i := range s.Devices {
		if s.Devices[i].Name == name {
			return &s.Devices[i]
		}
	}
	return nil
}

// ByID is the device paired with id, nil when none is.
func (s *Store) ByID(id string) *Device {
	for i := range s.Devices {
		if s.Devices[i].ID == id {
			return &s.Devices[i]
		}
	}
	return nil
}

// Remove drops the device called name and reports whether there was one.
func (s *Store) Remove(name string) (Device, bool) {
	for i, d := range s.Devices {
		if d.Name == name {
			s.Devices = slices.Delete(s.Devices, i, i+1)
			return d, true
		}
	}
	return Device{}, false
}

// Encode renders the store as the file writes it.
func (s *Store) Encode() []byte {
	var b bytes.Buffer
	b.WriteString("# tma's paired devices: what each `tma serve --stdio --device <id>` connection may do.\n")
	b.WriteString("# Written by `tma device pair|grant|revoke`; every serve process re-reads it per request.\n")
	for _, d := range s.Devices {
		b.WriteString("\n[[device]]\n")
		fmt.Fprintf(&b, "name = %s\n", strconv.Quote(d.Name))
		fmt.Fprintf(&b, "id = %s\n", strconv.Quote(d.ID))
		var q []string
		for _, sc := range Sorted(d.Scopes) {
			q = append(q, strconv.Quote(sc))
		}
		fmt.Fprintf(&b, "scopes = [%s]\n", strings.Join(q, ", "))
		if d.PairedAtMS > 0 {
			fmt.Fprintf(&b, "paired_at_ms = %d\n", d.PairedAtMS)
		}
	}
	return b.Bytes()
}

// Save writes the store by atomic rename at 0600, making its directory
// (0700) when it is missing.
func (s *Store) Save() error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return &Error{Path: s.Path, Msg: pathMsg(err)}
	}
	if err := atomicfile.Write(s.Path, s.Encode(), 0o600); err != nil {
		return &Error{Path: s.Path, Msg: pathMsg(err)}
	}
	return nil
}

// Update loads the store, lets fn change it and saves it, all under an
// exclusive flock on a lock file beside it. fn returning an error saves
// nothing and returns that error.
func Update(path string, fn func(*Store) error) error {
	return locked(path, func() error {
		s, err := Load(path)
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
		return s.Save()
	})
}
