package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestMarshalRemote(t *testing.T) {
	since := int64(5)
	for _, title := range []string{"", "api-server", `quote " and ,"title":"x" inside`, `ends with \`} {
		r := AgentRow{Pane: "%1", Agent: "claude", State: "idle", Since: &since, Locator: "s:0.0", Title: title, Server: "/tmp/s", Host: "h"}
		local, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		remote, err := MarshalRemote(r)
		if err != nil {
			t.Fatal(err)
		}
		var lm, rm map[string]any
		if err := json.Unmarshal(local, &lm); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(remote, &rm); err != nil {
			t.Fatalf("%s: %v", remote, err)
		}
		if _, ok := rm["title"]; ok {
			t.Errorf("remote row keeps title: %s", remote)
		}
		delete(lm, "title")
		if !reflect.DeepEqual(lm, rm) {
			t.Errorf("remote row differs beyond title:\n local %s\nremote %s", local, remote)
		}
		// The order is the local order without title.
		if want := strings.Replace(string(local), `,"title":`+string(mustJSON(t, title)), "", 1); want != string(remote) {
			t.Errorf("order: got %s want %s", remote, want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
