// Package record defines the versioned NDJSON records that flow between the
// tma filters (tma-scan | tma-fold | tma-stamp | tma-view); every kind is
// declared here once and nowhere else. It also reads and writes them: a
// line at a time (Reader, Writer) and a cycle at a time (ReadGroups,
// Writer.WriteGroup), the shape every filter works in.
package record
