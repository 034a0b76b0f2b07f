package doctor

import "time"

// Daemon is what the command found of the server's tier-3 daemon: who
// holds its lock (and the version written there) and, when it answered,
// what it said of its last reload.
type Daemon struct {
	Up          bool
	Socket      string // the daemon's own socket
	Version     string // the running daemon's build, from its lock
	CLIVersion  string // this build's
	ReloadError string // its last reload's failure, "" for none
	ReloadMS    int64  // when that reload ran
	// OtherDir, for a daemon found under the tmux server's runtime
	// directory rather than this shell's, says so and what it means.
	OtherDir string
}

// Skewed: a daemon of another build than this CLI.
func (d Daemon) Skewed() bool { return d.Up && d.Version != d.CLIVersion }

func (d Daemon) doc() dDaemon {
	out := dDaemon{Alive: d.Up, Socket: d.Socket}
	if d.Up {
		ver := d.Version
		out.Version, out.VersionSkew = &ver, d.Skewed()
	}
	if d.ReloadError != "" {
		e := d.ReloadError
		out.ReloadError = &e
	}
	return out
}

// lines writes doctor's daemon: line and what follows it. Neither a
// missing daemon nor a skewed one is a warning: they are runtime choices.
func (d Daemon) lines(line func(label, format string, a ...any)) {
	if !d.Up {
		line("daemon:", "not running (%s) — tier 3 needs a running daemon (`tma daemon --ensure`)", d.Socket)
		return
	}
	line("daemon:", "running (%s)", d.Socket)
	if d.OtherDir != "" {
		line("", "%s", d.OtherDir)
	}
	if d.Skewed() {
		line("", "version %s differs from this CLI (%s) — `tma reload` only re-reads config and manifests; run `tma daemon --restart` to put this build in its place",
			orUnknown(d.Version), d.CLIVersion)
	}
	if d.ReloadError != "" {
		line("", "its last reload (%s) failed and it kept the config and manifests it had: %s — fix the file, then `tma reload`",
			time.UnixMilli(d.ReloadMS).Format("15:04:05"), d.ReloadError)
	}
}

func (d Daemon) up() bool { return d.Up }

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}
