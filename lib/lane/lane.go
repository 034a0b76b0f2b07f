package lane

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/act/ledger"
	"github.com/tmaproject/tma/lib/atomicfile"
	"github.com/tmaproject/tma/lib/hook"
)

// Option is the pane option carrying the held request's id: the one the
// hook's claim stamps.
const Option = hook.RequestOption

// Replies a [hook] arm may hand back: claude's own behaviours.
const (
	Allow = "allow"
	Deny  = "deny"
)

// DenyMessage is what claude reads (and shows as the tool's error) on a
// deny over the lane.
const DenyMessage = "Denied by the user through tma (tma act deny)"

// Poll is how often a held hook looks for its verdict, and TakeWait how long
// tma act waits for a held hook to take a verdict before withdrawing it.
const (
	Poll     = 50 * time.Millisecond
	TakeWait = 2 * time.Second
)

// staleMS: files older than this (the longest hold plus a minute) are
// leftovers of a killed process, swept when a record is written.
const staleMS = 650_000

// Dir is where the records live: requests/ in tma's runtime directory
// ($XDG_RUNTIME_DIR/tma, else /tmp/tma-<uid>; the ledger's).
func Dir(getenv func(string) string) string {
	return filepath.Join(ledger.RuntimeDir(getenv), "requests")
}

// Ensure creates the runtime directory and dir, 0700, and refuses either
// when it is not a private directory of this user.
func Ensure(dir string) error {
	if err := ledger.Ensure(filepath.Dir(dir)); err != nil {
		return err
	}
	return ledger.Ensure(dir)
}

// NewID mints a request id: 16 lowercase hex digits.
func NewID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// ValidID reports whether s is a request id (16 lowercase hex digits).
func ValidID(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// PaneKey names a pane on a server in file names: the next event on that
// pane finds the pane's records by it without reading them.
func PaneKey(server, pane string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + pane))
	return hex.EncodeToString(sum[:4])
}

// Request is one held PermissionRequest: the record a hook writes before it
// holds. Never the call's text beyond the summary the pane already carries.
type Request struct {
	V         int    `json:"v"`
	ID        string `json:"id"`
	Agent     string `json:"agent"`
	Server    string `json:"server"`
	Pane      string `json:"pane"`
	Session   string `json:"session"`
	Tool      string `json:"tool"`
	Call      string `json:"call"`
	Summary   string `json:"summary"`
	PID       int    `json:"pid"`
	CreatedMS int64  `json:"created_ms"`
	ExpiresMS int64  `json:"expires_ms"`
}

// Verdict is what tma act hands a held hook.
type Verdict struct {
	V        int    `json:"v"`
	ID       string `json:"id"`
	Behavior string `json:"behavior"`
	AtMS     int64  `json:"at_ms"`
}

func recordName(r Request) string { return PaneKey(r.Server, r.Pane) + "-" + r.ID + ".json" }

func verdictPath(dir, id string) string { return filepath.Join(dir, id+".verdict") }

// Write writes r's record, 0600, atomically, after removing the pane's
// older records (a new prompt supersedes them: their hooks stop holding)
// and sweeping leftovers. It returns the record's path.
func Write(dir string, r Request) (string, error) {
	if !ValidID(r.ID) {
		return "", fmt.Errorf("bad request id %q", r.ID)
	}
	ClearPane(dir, r.Server, r.Pane, r.ID)
	Sweep(dir, r.CreatedMS)
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, recordName(r))
	return path, atomicfile.Write(path, append(b, '\n'), 0o600)
}

// ClearPane removes every record of the pane but keep's: the pane's agent
// moved on, so a hook still holding one of them returns empty-handed. It
// reports how many it removed. A missing directory is nothing to clear.
func ClearPane(dir, server, pane, keep string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	prefix := PaneKey(server, pane) + "-"
	n := 0
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".json") {
			continue
		}
		if keep != "" && name == prefix+keep+".json" {
			continue
		}
		if os.Remove(filepath.Join(dir, name)) == nil {
			n++
		}
	}
	return n
}

// Sweep removes what no hook holds any more: a record past its expiry or
// whose hook process is gone (a hook killed mid-hold), and any file older
// than staleMS. Every hook event sweeps, so a leftover lives no longer
// than the next event on the server. A missing directory is nothing to do.
func Sweep(dir string, nowMS int64) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil {
			continue
		}
		if nowMS-info.ModTime().UnixMilli() > staleMS {
			_ = os.Remove(path)
			continue
		}
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		r, err := DecodeRequest(b)
		if err != nil {
			continue // another writer's half-written file: its age sweeps it
		}
		if r.ExpiresMS < nowMS-int64(staleGrace/time.Millisecond) || r.PID > 0 && !ledger.Alive(r.PID) {
			_ = os.Remove(path)
		}
	}
}

// staleGrace lets an expired hold finish its own cleanup before a sweep.
const staleGrace = 2 * time.Second

// Find reads the record of request id; nil when there is none.
func Find(dir, id string) (*Request, string, error) {
	if !ValidID(id) {
		return nil, "", nil
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*-"+id+".json"))
	if len(paths) == 0 {
		return nil, "", nil
	}
	b, err := os.ReadFile(paths[0])
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	r, err := DecodeRequest(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", paths[0], err)
	}
	return r, paths[0], nil
}

// Held reports whether a hook is holding request id for pane now: its
// record exists, names the pane, and has not expired.
func Held(dir, id, pane string, nowMS int64) (*Request, bool) {
	r, _, err := Find(dir, id)
	if err != nil || r == nil {
		return nil, false
	}
	return r, r.Pane == pane && r.ExpiresMS > nowMS
}

// DecodeRequest parses a record strictly.
func DecodeRequest(b []byte) (*Request, error) {
	var r Request
	if err := strict(b, &r); err != nil {
		return nil, err
	}
	if r.V != 1 || !ValidID(r.ID) {
		return nil, errors.New("not a v1 request record")
	}
	return &r, nil
}

// DecodeVerdict parses a verdict strictly.
func DecodeVerdict(b []byte) (*Verdict, error) {
	var v Verdict
	if err := strict(b, &v); err != nil {
		return nil, err
	}
	if v.V != 1 || !ValidID(v.ID) || v.Behavior != Allow && v.Behavior != Deny {
		return nil, errors.New("not a v1 verdict")
	}
	return &v, nil
}

func strict(b []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// Offer writes the verdict for its request, atomically: a hook sees all of
// it or none.
func Offer(dir string, v Verdict) error {
	if !ValidID(v.ID) || v.Behavior != Allow && v.Behavior != Deny {
		return fmt.Errorf("bad verdict %q for %q", v.Behavior, v.ID)
	}
	v.V = 1
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.Write(verdictPath(dir, v.ID), append(b, '\n'), 0o600)
}

// Taken reports whether the verdict for id is no longer on offer (a hook
// took it).
func Taken(dir, id string) bool {
	_, err := os.Lstat(verdictPath(dir, id))
	return errors.Is(err, fs.ErrNotExist)
}

// Withdraw takes an untaken verdict back. taken is true when it was gone
// already: a hook took it first, and its decision is on its way to claude.
func Withdraw(dir, id string) (taken bool, err error) {
	err = os.Remove(verdictPath(dir, id))
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	return false, err
}

// AwaitTake offers nothing: it waits up to wait for a hook to take the
// verdict for id, then withdraws it if none did. The rename a hook takes
// by and the remove a withdrawal is are each atomic, so exactly one side
// has the verdict.
func AwaitTake(dir, id string, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if Taken(dir, id) {
			return true, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return Withdraw(dir, id)
}

// Take claims the verdict for id if one is on offer: rename first (so a
// withdrawal and a take cannot both succeed), then read.
func Take(dir, id string) (*Verdict, bool) {
	src := verdictPath(dir, id)
	dst := filepath.Join(dir, "."+id+".taken."+strconv.Itoa(os.Getpid()))
	if os.Rename(src, dst) != nil {
		return nil, false
	}
	b, err := os.ReadFile(dst)
	_ = os.Remove(dst)
	if err != nil {
		return nil, false
	}
	v, err := DecodeVerdict(b)
	if err != nil || v.ID != id {
		return nil, false
	}
	return v, true
}

// Decision is claude's PermissionRequest decision object for a verdict,
// exactly the bytes the hook prints (without the newline).
func Decision(behavior string) []byte {
	switch behavior {
	case Allow:
		return []byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`)
	case Deny:
		msg, _ := json.Marshal(DenyMessage)
		return []byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":` + string(msg) + `}}}`)
	}
	return nil
}

// Ending is how a hold ended.
type Ending int

const (
	Replied Ending = iota // a verdict was taken: print its decision
	Cleared               // the record is gone: the agent moved on
	Expired               // the hold ran out: the record is deleted
)

func (e Ending) String() string {
	return [...]string{"replied", "cleared", "expired"}[e]
}

// Hold waits for a verdict on request id whose record is at path, polling
// every poll until deadline; a verdict on offer at the deadline still
// counts. On a verdict and on expiry the record is deleted.
func Hold(dir, id, path string, deadline time.Time, poll time.Duration) (*Verdict, Ending) {
	for {
		if v, ok := Take(dir, id); ok {
			_ = os.Remove(path)
			return v, Replied
		}
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, Cleared
		}
		left := time.Until(deadline)
		if left <= 0 {
			_ = os.Remove(path)
			if v, ok := Take(dir, id); ok {
				return v, Replied
			}
			return nil, Expired
		}
		time.Sleep(min(poll, left))
	}
}
