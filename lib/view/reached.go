package view

import (
	"fmt"
	"io"

	"github.com/tmaproject/tma/lib/record"
)

// Reached prints what tma wait prints for a reached target, local or over
// --host: the ls document (multi, as JSON) or the one row as a schema-1
// object, else the ls lines.
func Reached(w io.Writer, rows []*record.Row, multi, asJSON bool) error {
	switch {
	case asJSON && multi:
		return LsJSON(w, rows)
	case asJSON:
		b, err := record.MarshalRowObject(rows[0].Row)
		if err == nil {
			_, err = fmt.Fprintf(w, "%s\n", b)
		}
		return err
	}
	return LsPlain(w, rows)
}
