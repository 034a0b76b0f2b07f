package manifest

import "testing"

func TestBundledParse(t *testing.T) {
	agents, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range agents {
		names = append(names, a.Name)
		if !a.Bundled || a.Source != "bundled:"+a.Name+".toml" {
			t.Errorf("%s: Bundled=%v Source=%q", a.Name, a.Bundled, a.Source)
		}
	}
	want := []string{"claude", "codex", "cursor", "gemini", "opencode", "pi"}
	if len(names) != len(want) {
		t.Fatalf("bundled agents = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("bundled agents = %v, want %v", names, want)
		}
	}
}
