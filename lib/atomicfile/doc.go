// Package atomicfile writes a file whole or not at all: a temp file beside
// it, synced, then renamed over it. Readers never see a torn file, and a
// crash leaves the old one.
package atomicfile
