package record

import (
	"testing"
)

// FuzzCodec is the hand codec against encoding/json, differentially. For
// any line: a line the fast decoder takes decodes to exactly (DeepEqual)
// what encoding/json decodes, which must accept it too; Unmarshal's value
// and error are encoding/json's whichever path ran; and a record encoding/json
// decodes re-encodes through the fast encoder to json.Marshal's bytes.
func FuzzCodec(f *testing.F) {
	for _, line := range streamLines(f) {
		f.Add(line)
	}
	for _, line := range takenLines {
		f.Add([]byte(line))
	}
	for line := range refusedLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		agree(t, line)
		if _, v, err := unmarshalJSON(line); err == nil && v != nil {
			if _, ok := v.(*Error); !ok {
				encodesAlike(t, v)
			}
		}
	})
}
