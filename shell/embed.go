// Package shell carries the dispatcher (shell/tma) into the Go tools:
// `go install …/cmd/...` builds the tma-* tools only, and
// `tma-setup install-dispatcher` writes this copy of the script beside them.
package shell

import _ "embed"

// Dispatcher is shell/tma as built into this version.
//
//go:embed tma
var Dispatcher []byte
