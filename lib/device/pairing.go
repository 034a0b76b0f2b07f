package device

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/atomicfile"
)

// A web device (`tma device pair NAME --web`) has no ssh key: it holds a
// bearer token. The store keeps only the token's digest, as the device's
// id, so devices.toml never holds a secret and list, grant and revoke work
// on a web device as on any other.
const (
	// WebIDPrefix starts every web device's id.
	WebIDPrefix = "web:"
	// PairingFileName holds the offered, unredeemed pairing codes.
	PairingFileName = "pairing.json"
	// PairingTTL is how long an offered code can be redeemed.
	PairingTTL = 10 * time.Minute
)

// ErrBadCode is a code that is unknown, used or expired: the three are
// told apart to nobody, so a guesser learns nothing.
var ErrBadCode = errors.New("the pairing code is unknown, already used or expired; run `tma device pair NAME --web` on the host for a new one")

// WebID is the id a web device with token is stored under.
func WebID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return WebIDPrefix + hex.EncodeToString(sum[:])
}

// IsWeb reports whether d was paired with --web.
func (d *Device) IsWeb() bool { return strings.HasPrefix(d.ID, WebIDPrefix) }

type pending struct {
	Name        string   `json:"name"`
	CodeSHA256  string   `json:"code_sha256"`
	Scopes      []string `json:"scopes"`
	ExpiresAtMS int64    `json:"expires_at_ms"`
}

type pairingFile struct {
	Schema  int       `json:"schema"`
	Pending []pending `json:"pending"`
}

func pairingPath(devicesPath string) string {
	return filepath.Join(filepath.Dir(devicesPath), PairingFileName)
}

func loadPending(path string) ([]pending, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Path: path, Msg: pathMsg(err)}
	}
	var f pairingFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, &Error{Path: path, Msg: "not a pairing file: " + err.Error()}
	}
	return f.Pending, nil
}

func savePending(path string, ps []pending) error {
	if ps == nil {
		ps = []pending{}
	}
	b, _ := json.Marshal(pairingFile{Schema: 1, Pending: ps})
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return &Error{Path: path, Msg: pathMsg(err)}
	}
	return nil
}

func live(ps []pending, nowMS int64) []pending {
	return slices.DeleteFunc(ps, func(p pending) bool { return p.ExpiresAtMS <= nowMS })
}

func digest(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}

// secret is n random bytes, encoded for a URL.
func secret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Offer records a one-time pairing code for a web device called name with
// scopes, redeemable until now+PairingTTL, and returns the code. A name
// already paired is refused; a code offered earlier for the same name is
// replaced, so only the newest printed URL works.
func Offer(devicesPath, name string, scopes []string, now time.Time) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	// 100 bits, in an alphabet a person can read off a screen and type.
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	code := strings.ToLower(base32.StdEncoding.EncodeToString(b))
	err := locked(devicesPath, func() error {
		s, err := Load(devicesPath)
		if err != nil {
			return err
		}
		if d := s.ByName(name); d != nil {
			return fmt.Errorf("a device is already called %s (%s); revoke it first, or grant it a scope", name, d.ID)
		}
		pp := pairingPath(devicesPath)
		ps, err := loadPending(pp)
		if err != nil {
			return err
		}
		ps = slices.DeleteFunc(live(ps, now.UnixMilli()), func(p pending) bool { return p.Name == name })
		ps = append(ps, pending{Name: name, CodeSHA256: digest(code), Scopes: Sorted(scopes),
			ExpiresAtMS: now.Add(PairingTTL).UnixMilli()})
		return savePending(pp, ps)
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// Redeem trades a pairing code for a device token: the code is consumed
// (whatever follows, it never pairs twice), the device is added to the
// store under the token's digest, and the token is returned, the only
// time it exists in the clear.
func Redeem(devicesPath, code string, now time.Time) (Device, string, error) {
	var d Device
	token := secret(32)
	err := locked(devicesPath, func() error {
		pp := pairingPath(devicesPath)
		ps, err := loadPending(pp)
		if err != nil {
			return err
		}
		ps = live(ps, now.UnixMilli())
		want := digest(code)
		i := slices.IndexFunc(ps, func(p pending) bool {
			return subtle.ConstantTimeCompare([]byte(p.CodeSHA256), []byte(want)) == 1
		})
		if i < 0 {
			return ErrBadCode
		}
		p := ps[i]
		ps = slices.Delete(ps, i, i+1)
		if err := savePending(pp, ps); err != nil {
			return err
		}
		s, err := Load(devicesPath)
		if err != nil {
			return err
		}
		if s.ByName(p.Name) != nil {
			return fmt.Errorf("a device called %s was paired meanwhile; this code is spent", p.Name)
		}
		d = Device{Name: p.Name, ID: WebID(token), Scopes: p.Scopes, PairedAtMS: now.UnixMilli()}
		s.Devices = append(s.Devices, d)
		return s.Save()
	})
	if err != nil {
		return Device{}, "", err
	}
	return d, token, nil
}

// locked runs fn under the store's flock (the one Update takes).
func locked(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return &Error{Path: path, Msg: pathMsg(err)}
	}
	lf, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return &Error{Path: path, Msg: pathMsg(err)}
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		return &Error{Path: path, Msg: "lock: " + err.Error()}
	}
	return fn()
}
