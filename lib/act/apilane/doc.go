// Package apilane answers an agent's pending request over the agent's own
// HTTP server (OpenCode's permission and question routes) instead of
// keystrokes. It speaks HTTP to one base URL the caller resolved and runs
// nothing else.
package apilane
