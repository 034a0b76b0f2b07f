package manifest

import "testing"

// BenchmarkLoadGet is what a hook pays for its manifest: a load and one Get.
func BenchmarkLoadGet(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		s, err := Load(LoadOptions{UserDir: dir})
		if err != nil || s.Get("claude") == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAll is what identity pays: every bundled manifest built.
func BenchmarkAll(b *testing.B) {
	for b.Loop() {
		s, _ := Load(LoadOptions{})
		if len(s.All()) == 0 {
			b.Fatal("no agents")
		}
	}
}

// BenchmarkParseTOML is the decode every bundled manifest cost each
// process before they were generated: all of them, from TOML.
func BenchmarkParseTOML(b *testing.B) {
	for b.Loop() {
		parseEmbedded(b)
	}
}
