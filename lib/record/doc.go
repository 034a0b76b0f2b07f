// Package record defines the versioned NDJSON records that flow between the
// tma filters (tma-scan | tma-fold | tma-stamp | tma-view); every kind is
// declared here once and nowhere else.
package record
