// Package stream turns a sequence of observed cycles into what `tma
// subscribe` prints: snapshots, changed snapshots, or transition events. It
// is pure.
package stream
