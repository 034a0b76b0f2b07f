package record

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalRemote renders a row in its title-free form, the one every
// consumer off this machine gets (`tma serve`): the local encoding with the
// title key cut out, so every other key, its order and its null handling
// are the local row's and a key added to the row is added to both. A pane
// title is agent-supplied text; it stays on the machine that drew it.
func MarshalRemote(r AgentRow) ([]byte, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	title, err := json.Marshal(r.Title)
	if err != nil {
		return nil, err
	}
	// Inside an encoded string every quote is escaped, so `,"title":`
	// followed by the encoded title occurs once, as the key itself.
	needle := append([]byte(`,"title":`), title...)
	i := bytes.Index(body, needle)
	if i < 0 {
		return nil, fmt.Errorf("record: no title key in the encoded row")
	}
	return append(body[:i:i], body[i+len(needle):]...), nil
}
