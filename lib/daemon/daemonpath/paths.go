package daemonpath

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Paths are where the daemon of one tmux server lives: one daemon per
// server, keyed by the server's #{socket_path}, in a private per-user
// directory.
type Paths struct {
	Server string // the tmux server's socket path
	Dir    string // the runtime directory holding the files below
	Socket string // <dir>/<16 hex>.sock, 0600: the daemon's protocol socket
	Lock   string // <dir>/<16 hex>.lock: `<pid> <version>`, flock'd while it runs
	Log    string // <dir>/<16 hex>.log, 0600, bounded (one rotated .1 beside it)
	Config string // <dir>/<16 hex>.config.toml: the last config the daemon accepted, which its stages read
	// Upgraded is <dir>/<16 hex>.upgraded: when restart_on_upgrade last
	// replaced this server's daemon.
	Upgraded string
	// StatusRun is <dir>/<16 hex>.status, empty: its mtime is when `tma
	// status` last committed a cycle on this server (doctor's ambient
	// line), set by every such run (MarkStatusRun).
	StatusRun string
}

// Dir is the daemon's runtime directory: $XDG_RUNTIME_DIR/tma when that is
// an absolute path (the directory tma's ledger and reply lane use), else
// tma-<uid> under $TMPDIR (else /tmp). Per user either way: a directory
// shared between users would let the first one lock the others out.
func Dir(getenv func(string) string) string {
	if x := getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "tma")
	}
	return filepath.Join(os.TempDir(), "tma-"+strconv.Itoa(os.Getuid()))
}

// For returns the daemon paths of the server whose socket is server, in
// the runtime directory of this process's environment. The name is the
// first 16 hex digits of the SHA-256 of the socket path.
func For(server string) Paths { return ForEnv(server, os.Getenv) }

// ForEnv is For with an explicit environment. When this environment's
// directory holds no socket for the server but the other place a daemon of
// this user starts in does (the systemd runtime directory, or tma-<uid>
// under $TMPDIR), that one is the server's daemon: a tmux server started
// where XDG_RUNTIME_DIR was set and a shell where it is not (su, cron, an
// ssh session without a login manager), or the other way round, still meet
// at one daemon. The look costs a stat or two, only when no daemon is in
// the first place.
func ForEnv(server string, getenv func(string) string) Paths {
	sum := sha256.Sum256([]byte(server))
	name := hex.EncodeToString(sum[:8])
	dir := Dir(getenv)
	if !exists(filepath.Join(dir, name+".sock")) {
		for _, alt := range otherDirs() {
			if alt != dir && exists(filepath.Join(alt, name+".sock")) && ours(alt) {
				dir = alt
				break
			}
		}
	}
	base := filepath.Join(dir, name)
	return Paths{Server: server, Dir: dir, Socket: base + ".sock", Lock: base + ".lock", Log: base + ".log", Config: base + ".config.toml", Upgraded: base + ".upgraded", StatusRun: base + ".status"}
}

// otherDirs are the runtime directories a daemon of this user starts in
// under some other environment: systemd's per-user runtime directory, and
// the $TMPDIR fallback Dir takes where XDG_RUNTIME_DIR is unset.
var otherDirs = func() []string {
	uid := strconv.Itoa(os.Getuid())
	return []string{filepath.Join("/run/user", uid, "tma"), filepath.Join(os.TempDir(), "tma-"+uid)}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// ours: a directory this user owns and no one else may write, so another
// user cannot plant a socket tma would then talk to.
func ours(dir string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	return ownedByMe(st)
}

// ServerPath is the #{socket_path} of the server t names, worked out the
// way tmux works it out and without asking tmux, so the hot paths (a hook,
// `tma status`) can find the daemon with no spawn: -S and $TMUX name it
// outright; -L NAME (or none: "default") is NAME in tmux-<uid> under
// $TMUX_TMPDIR (else /tmp), that directory resolved through symlinks as
// tmux's realpath does.
func ServerPath(socketName, socketPath string, getenv func(string) string) string {
	if socketPath != "" {
		return socketPath
	}
	base := getenv("TMUX_TMPDIR")
	if base == "" {
		base = "/tmp"
	}
	dir := filepath.Join(base, "tmux-"+strconv.Itoa(os.Getuid()))
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	name := socketName
	if name == "" {
		name = "default"
	}
	return filepath.Join(dir, name)
}

// MarkStatusRun sets the mtime of path (Paths.StatusRun) to now, creating
// it (0600, in a 0700 directory) the first time: every `tma status` run
// marks itself so, at the cost of a utimensat. A tmux option would cost a
// redraw of every attached client per write (tmux redraws them on any
// option write), which is why @tma_status_at is written only every 30 s
// and could lag that much.
func MarkStatusRun(path string, now time.Time) error {
	err := os.Chtimes(path, now, now)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chtimes(path, now, now)
}

// StatusRunAt is when MarkStatusRun last marked path, in epoch ms; 0 when
// never.
func StatusRunAt(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.ModTime().UnixMilli()
}
