// Package record defines the versioned NDJSON records that flow between the
// tma filters (tma-scan | tma-fold | tma-stamp | tma-view); every kind is
// declared here once and nowhere else. It also reads and writes them: a
// line at a time (Reader, Writer) and a cycle at a time (ReadGroups,
// Writer.WriteGroup), the shape every filter works in.
//
// The cycle, end, pane and row records go through a hand-written codec
// (codec*.go), not encoding/json's reflection. The reason is start-up, not
// throughput: every stage is a fresh process that decodes and encodes a
// handful of lines, and profiles of a status-line run showed encoding/json's
// reflection, with the per-type caches it builds anew in each process, as
// the largest single cost inside tma-fold and tma-stamp. The codec's rule
// is to be indistinguishable from encoding/json, byte for byte when
// encoding and value for value when decoding; whatever it is not certain to
// treat exactly so (an unknown or oddly cased key, a repeated key, a
// fraction where an integer goes, text that is not UTF-8, --explain's
// rules, any other kind) it hands to encoding/json, whose result and error
// stand. FuzzCodec holds the two to that, differentially.
package record
