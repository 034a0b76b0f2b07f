package webface

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tmaproject/tma/lib/serve"
)

// Host is what the web face observes and fires through: the same functions
// serve.Conn takes, wired by the command.
type Host struct {
	DevicesPath string
	Cycle       func(ctx context.Context) (*serve.Snapshot, error)
	ActionKind  func(name string) (kind string, ok bool)
	Fire        func(ctx context.Context, d serve.Dispatch) (serve.Receipt, error)
	Receipts    func(ctx context.Context, slot string) (json.RawMessage, error)
	Card        func(ctx context.Context, pane string) (*serve.PaneCard, error)
	Now         func() time.Time
	Log         func(format string, a ...any)
}

// Options is how the server is reached.
type Options struct {
	// Listen is the bound address (host:port) as the listener reports it.
	Listen string
	// Hosts are further names the Host header may carry ([serve.http]
	// hosts, public_url's host), with or without a port.
	Hosts []string
	// IntervalMS is the event stream's cycle; 0 is DefaultIntervalMS.
	IntervalMS int
	Version    string
	HostName   string
}

// DefaultIntervalMS is how often a stream's shared cycle runs: a phone sees
// an agent move on within a second.
const DefaultIntervalMS = 500

// MaxBody bounds a request body.
const MaxBody = 64 << 10
