// Package plugins holds the JavaScript sources tma install-hooks writes for
// the agents that take a plugin file instead of a hooks block (OpenCode, pi).
// They are embedded into tma-setup, which fills in two placeholders: the
// wrapper reference (__TMA_HOOK__) and the event table (__EVENTS__), both as
// JSON literals.
package plugins

import _ "embed"

// OpenCode is the OpenCode plugin template (~/.config/opencode/plugin/tma.js).
//
//go:embed opencode.js
var OpenCode string

// Pi is the pi extension template (~/.pi/agent/extensions/tma.js).
//
//go:embed pi.js
var Pi string
