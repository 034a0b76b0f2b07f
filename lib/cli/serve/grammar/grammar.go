package grammar

import (
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/selector"
)

// Serve is `tma serve`: --stdio --device ID (an ssh forced command's), or
// --http (the web face).
type Serve struct {
	Stdio  bool   `name:"stdio" help:"speak NDJSON frames on stdin/stdout: one connection, spawned by an ssh forced command."`
	Device string `name:"device" placeholder:"ID" help:"with --stdio: the paired device's id, written into the authorized_keys forced command (the only thing serve authorizes on)."`
	// The web face (docs/serve.md, "The web face").
	HTTP    bool   `name:"http" help:"serve the web face (a JSON API and its page) on ADDR, in the foreground: default [serve.http] listen, else 127.0.0.1:7878."`
	Addr    string `arg:"" optional:"" placeholder:"ADDR" help:"with --http: the host:port to listen on (loopback unless --tls-cert and --tls-key are given)."`
	TLSCert string `name:"tls-cert" placeholder:"FILE" help:"with --http: the TLS certificate (PEM) that lets ADDR be beyond loopback."`
	TLSKey  string `name:"tls-key" placeholder:"FILE" help:"with --http: the TLS certificate's key (PEM)."`
	// The hardening (docs/serve.md, "Hardening: the guard"): opt-ins
	// written on the authorized_keys line, off for the manual's line.
	RequireAuthInfo bool `name:"require-auth-info" help:"refuse unless the key sshd authenticated ($SSH_USER_AUTH, sshd_config ExposeAuthInfo yes) is the one --device names."`
	AllowAttach     bool `name:"allow-attach" help:"let exactly 'tma attach --pane %N' in $SSH_ORIGINAL_COMMAND through to tma attach, for a device holding act:always (needs --require-auth-info)."`
}

// RemoteAct is `tma act <name> --host NAME --pane ID`: the dispatcher
// routes an act that names a host here, and the fire happens on that host
// through its serve, under the scopes its devices.toml gives this device.
type RemoteAct struct {
	Name string  `arg:"" help:"the action to fire on the remote pane."`
	Host string  `name:"host" required:"" placeholder:"NAME" help:"the [[remote]] whose pane it is."`
	Pane string  `name:"pane" required:"" placeholder:"ID" help:"the remote pane (its id on that host)."`
	Slot string  `name:"slot" placeholder:"ID" help:"dispatch at most once per ID, in the host's ledger."`
	Text *string `name:"text" placeholder:"LINE" help:"the line a text action types."`
	JSON bool    `name:"json" help:"print the result object."`
}

// RemoteWait is `tma wait --host NAME …`: tma wait's targets and exit
// codes over one held serve connection, a snapshot per host interval.
type RemoteWait struct {
	selector.Flags
	Host    string `name:"host" required:"" placeholder:"NAME" help:"the [[remote]] whose panes to wait on."`
	Pane    string `name:"pane" placeholder:"ID" help:"wait on this pane (its id on that host)."`
	Any     bool   `name:"any" help:"wait on any agent pane in scope."`
	All     bool   `name:"all" help:"a barrier over every agent pane in scope at the first observation."`
	Count   int    `name:"count" placeholder:"N" help:"a quorum: N panes in scope in a target state."`
	Until   string `name:"until" required:"" placeholder:"STATES" help:"comma-separated: idle, working, blocked, unknown, done."`
	Since   int64  `name:"since" placeholder:"MS" help:"require an episode strictly newer than this episode_ms."`
	Timeout string `name:"timeout" placeholder:"SECS" help:"give up after this long (seconds, or a duration): exit 124."`
	JSON    bool   `name:"json" help:"print the matched row as a schema-1 object."`
}

// RemoteSubscribe is `tma subscribe --json --host NAME`: the same
// documents (or transitions) as tma subscribe, one per host snapshot.
type RemoteSubscribe struct {
	selector.Flags
	Host        string `name:"host" required:"" placeholder:"NAME" help:"the [[remote]] to stream."`
	JSON        bool   `name:"json" help:"required: one JSON document per line."`
	ChangesOnly bool   `name:"changes-only" help:"print a snapshot only when it differs from the last one sent."`
	Events      bool   `name:"events" help:"print one record per state transition instead of snapshots."`
}

// CLI is tma-serve's whole grammar.
type CLI struct {
	common.Globals
	Serve Serve `cmd:"" help:"answer one remote connection (spawned by an ssh forced command, not typed)."`
	// RemoteAct is the client end: the dispatcher routes `tma act --host`
	// here.
	RemoteAct RemoteAct `cmd:"" name:"remote-act" hidden:"" help:"fire an action on a [[remote]]'s pane through its serve."`
	// RemoteWait is `tma wait --host`.
	RemoteWait RemoteWait `cmd:"" name:"remote-wait" hidden:"" help:"wait on a [[remote]]'s panes through its serve."`
	// RemoteSubscribe is `tma subscribe --host`.
	RemoteSubscribe RemoteSubscribe `cmd:"" name:"remote-subscribe" hidden:"" help:"stream a [[remote]]'s rows through its serve."`
}

// Grammar is tma-serve's command line as kong parses it, for the
// completion scripts.
func Grammar() any { return &CLI{} }
