package install

import "testing"

func TestDiff(t *testing.T) {
	if d := Diff([]byte("a\n"), []byte("a\n")); d != "" {
		t.Errorf("equal: %q", d)
	}
	got := Diff([]byte("{}\n"), []byte("{\n  \"a\": 1\n}\n"))
	want := "  @@ -1 +1,3 @@\n  - {}\n  + {\n  +   \"a\": 1\n  + }\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = Diff(nil, []byte("x\n"))
	if got != "  @@ -0,0 +1 @@\n  + x\n" {
		t.Errorf("new file: %q", got)
	}
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	new := "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n"
	got = Diff([]byte(old), []byte(new))
	want = "  @@ -1,6 +1,6 @@\n    1\n    2\n  - 3\n  + X\n    4\n    5\n    6\n  @@ -8,5 +8,5 @@\n    8\n    9\n    10\n  - 11\n  + Y\n    12\n"
	if got != want {
		t.Errorf("two hunks: got\n%s\nwant\n%s", got, want)
	}
}
