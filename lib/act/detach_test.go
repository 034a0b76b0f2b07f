package act

import "testing"

func TestDetachParse(t *testing.T) {
	head := "min_engine_version = \"0.1\"\nname = \"x\"\nlabel = \"X\"\nkind = \"exec\"\ncommand = \"true\"\n"
	a, err := Parse("x", "x.toml", []byte(head+"detach = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Detach || a.DetachTimeoutMS != DefaultDetachTimeoutMS || a.Deadline() != DefaultDetachTimeoutMS {
		t.Errorf("default deadline: %+v", a)
	}
	a, err = Parse("x", "x.toml", []byte(head+"detach = true\ndetach_timeout_ms = 1500\n"))
	if err != nil || a.Deadline() != 1500 {
		t.Fatalf("%+v %v", a, err)
	}
	if e := Effect(a, "claude", ""); e != "command (detached: a supervisor runs it, killed at 1500 ms, and reports its completion): true" {
		t.Errorf("effect %q", e)
	}
	a, err = Parse("x", "x.toml", []byte(head+"detach = false\ntimeout_ms = 700\n"))
	if err != nil || a.Detach || a.Deadline() != 700 {
		t.Fatalf("detach = false: %+v %v", a, err)
	}
}
