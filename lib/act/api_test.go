package act

import (
	"strings"
	"testing"
)

func TestAPIParse(t *testing.T) {
	head := "min_engine_version = \"0.1\"\nname = \"x\"\nlabel = \"X\"\nkind = \"keys\"\n[keys]\nopencode = [\"Enter\"]\n"
	a, err := Parse("x", "x.toml", []byte(head+"[api]\nopencode = { op = \"permission-reply\", reply = \"once\" }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.API["opencode"] != (APIArm{Op: OpPermissionReply, Reply: "once"}) {
		t.Errorf("arm %+v", a.API)
	}
	a, err = Parse("x", "x.toml", []byte(head+"[api]\nopencode = { op = \"question-reject\" }\n"))
	if err != nil || a.API["opencode"] != (APIArm{Op: OpQuestionReject}) {
		t.Fatalf("question-reject: %+v %v", a, err)
	}
	for src, want := range map[string]string{
		head + "[api]\ncodex = { op = \"permission-reply\", reply = \"once\" }":                     "api.codex: only opencode have an HTTP answer lane",
		head + "[api]\nopencode = { reply = \"once\" }":                                             "api.opencode: missing op",
		head + "[api]\nopencode = { op = \"approve\" }":                                             `api.opencode.op: "approve" is not one of permission-reply, question-reject`,
		head + "[api]\nopencode = { op = \"permission-reply\" }":                                    "api.opencode: permission-reply needs a reply",
		head + "[api]\nopencode = { op = \"permission-reply\", reply = \"yes\" }":                   `api.opencode.reply: "yes" is not one of once, always, reject`,
		head + "[api]\nopencode = { op = \"question-reject\", reply = \"once\" }":                   "api.opencode.reply: question-reject takes no reply",
		head + "[api]\nopencode = { op = \"permission-reply\", reply = \"once\", x = 1 }":           "unknown key api.opencode.x",
		strings.Replace(head, "keys", "text", 1) + "[api]\nopencode = { op = \"question-reject\" }": "",
	} {
		_, err := Parse("x", "x.toml", []byte(src))
		if want == "" {
			if err == nil {
				t.Errorf("%q parsed", src)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	// The bundled answers: approve is OpenCode's once, deny its reject.
	set, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Get("approve").API["opencode"]; got != (APIArm{Op: OpPermissionReply, Reply: "once"}) {
		t.Errorf("approve's api arm %+v", got)
	}
	if got := set.Get("deny").API["opencode"]; got != (APIArm{Op: OpPermissionReply, Reply: "reject"}) {
		t.Errorf("deny's api arm %+v", got)
	}
}
