package device

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPairingCodeIsOneTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	now := time.UnixMilli(1_800_000_000_000)
	code, err := Offer(path, "phone", DefaultScopes, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != 24 {
		t.Errorf("code %q: want 24 base32 characters", code)
	}
	st, err := os.Stat(filepath.Join(filepath.Dir(path), PairingFileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("pairing file: %v %v", st, err)
	}
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(path), PairingFileName))
	if strings.Contains(string(b), code) {
		t.Errorf("the pairing file holds the code in the clear: %s", b)
	}
	if _, _, err := Redeem(path, "wrong", now); !errors.Is(err, ErrBadCode) {
		t.Errorf("a wrong code: %v", err)
	}
	d, token, err := Redeem(path, code, now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "phone" || d.ID != WebID(token) || !d.IsWeb() || len(token) < 40 {
		t.Errorf("redeemed %+v token %q", d, token)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ByID(WebID(token)); got == nil || got.Name != "phone" || strings.Join(got.Scopes, ",") != "read,act:answer,act:steer" {
		t.Errorf("store: %+v", s.Devices)
	}
	if strings.Contains(string(s.Encode()), token) {
		t.Error("devices.toml holds the token in the clear")
	}
	if _, _, err := Redeem(path, code, now.Add(time.Minute)); !errors.Is(err, ErrBadCode) {
		t.Errorf("a code redeemed twice: %v", err)
	}
	if _, err := Offer(path, "phone", DefaultScopes, now); err == nil || !strings.Contains(err.Error(), "already called phone") {
		t.Errorf("offer for a paired name: %v", err)
	}
}

func TestPairingCodeExpires(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	now := time.UnixMilli(1_800_000_000_000)
	code, err := Offer(path, "tablet", OnlyScopes, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Redeem(path, code, now.Add(PairingTTL)); !errors.Is(err, ErrBadCode) {
		t.Errorf("a code at its expiry: %v", err)
	}
	// A second offer for the same name replaces the first.
	first, _ := Offer(path, "tablet", OnlyScopes, now)
	second, _ := Offer(path, "tablet", OnlyScopes, now)
	if _, _, err := Redeem(path, first, now); !errors.Is(err, ErrBadCode) {
		t.Errorf("a replaced code: %v", err)
	}
	d, _, err := Redeem(path, second, now.Add(PairingTTL-time.Millisecond))
	if err != nil || strings.Join(d.Scopes, ",") != "read" {
		t.Errorf("the newest code: %+v %v", d, err)
	}
}
