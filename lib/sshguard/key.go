package sshguard

import (
	"bufio"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Key is one publickey line of an SSH_USER_AUTH file.
type Key struct {
	Type string // the line's key type: ssh-ed25519, ecdsa-sha2-nistp256, …
	Blob []byte // the key as sshd received it (the base64 decoded)
}

// SHA256 is the key's fingerprint as `ssh-keygen -lf` prints it by
// default: the SHA-256 of the key blob, base64 without padding.
func (k Key) SHA256() string {
	sum := sha256.Sum256(k.Blob)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// MD5 is the older form, `ssh-keygen -E md5 -lf`: hex pairs joined by
// colons.
func (k Key) MD5() string {
	sum := md5.Sum(k.Blob)
	var b strings.Builder
	b.WriteString("MD5")
	for _, c := range sum {
		fmt.Fprintf(&b, ":%02x", c)
	}
	return b.String()
}

// Is reports whether id (a device id: a fingerprint in either form) names
// this key. The SHA256 form's base64 is case-sensitive; MD5's hex is not.
func (k Key) Is(id string) bool {
	if strings.HasPrefix(id, "SHA256:") {
		return id == k.SHA256()
	}
	if strings.HasPrefix(strings.ToUpper(id), "MD5:") {
		return strings.EqualFold(id, k.MD5())
	}
	return false
}

// MaxAuthInfo bounds the SSH_USER_AUTH file read: sshd writes a line per
// authentication method, a few hundred bytes each.
const MaxAuthInfo = 64 << 10

// ErrNoPublicKey is an SSH_USER_AUTH file with no publickey line: the
// session was authenticated some other way.
var ErrNoPublicKey = errors.New("no publickey line (the session was not authenticated by a key)")

// ReadAuthInfo parses an SSH_USER_AUTH file: one line per method sshd
// accepted, `publickey <type> <base64>` for a key (a certificate's line
// carries the certificate, and is matched as that blob). Other methods'
// lines are skipped; a publickey line that does not decode is an error
// naming its line, since it is sshd's own file and a torn one is not a key.
func ReadAuthInfo(r io.Reader) ([]Key, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxAuthInfo))
	sc.Buffer(make([]byte, 4096), MaxAuthInfo)
	var keys []Key
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "publickey" {
			continue
		}
		if len(f) < 3 {
			return nil, fmt.Errorf("line %d: a publickey line without a key type and key", n)
		}
		blob, err := base64.StdEncoding.DecodeString(f[2])
		if err != nil {
			return nil, fmt.Errorf("line %d: the key is not base64: %v", n, err)
		}
		// The blob starts with its own type as an SSH string; a line
		// whose two disagree is not a key sshd wrote.
		if len(blob) < 4 {
			return nil, fmt.Errorf("line %d: a key blob of %d bytes", n, len(blob))
		}
		l := binary.BigEndian.Uint32(blob)
		if uint64(l) > uint64(len(blob)-4) || string(blob[4:4+l]) != f[1] {
			return nil, fmt.Errorf("line %d: the key blob is not a %s key", n, f[1])
		}
		keys = append(keys, Key{Type: f[1], Blob: blob})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, ErrNoPublicKey
	}
	return keys, nil
}

// Match is the key among keys that id names, and whether one does. With
// several publickey lines (AuthenticationMethods publickey,publickey) any
// of them may be the device's: each was proven.
func Match(keys []Key, id string) (Key, bool) {
	for _, k := range keys {
		if k.Is(id) {
			return k, true
		}
	}
	return Key{}, false
}
