// Package viewcmd is the tma-view command: the rendering end of a pipeline
// (ls, status, explain). It is the last stage, so an upstream failure
// carried in-band becomes its exit code.
package viewcmd
