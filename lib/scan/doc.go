// Package scan observes one cycle: one list of every pane, one process walk,
// identity from the manifests, and one batched capture of exactly the panes
// whose verdict could have changed.
package scan
