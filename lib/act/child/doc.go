// Package child runs an exec action's command: sh -c exactly as the manifest
// wrote it, the pane's context only in the environment, in its own process
// group, killed whole at the deadline or when the process running it ends
// however it ends; and starts the detached supervisor of a detach = true
// action.
package child
