package setupcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/tmaproject/tma/lib/install"
)

// wrapperMark is how install.WrapperScript's shim begins: what tells the
// wrapper an install wrote at --wrapper-path / TMA_WRAPPER_PATH from a
// wrapper of the user's own there (a copy of tma-hook, a script of theirs),
// which uninstall never removes.
var wrapperMark = func() []byte {
	lines := bytes.SplitAfterN(install.WrapperScript("/"), []byte("\n"), 3)
	return bytes.Join(lines[:2], nil) // "#!/bin/sh" and its comment line
}()

// writtenWrapper reports whether b is a wrapper shim install wrote.
func writtenWrapper(b []byte) bool { return bytes.HasPrefix(b, wrapperMark) }

// namedWrapper is the wrapper file --wrapper-path or TMA_WRAPPER_PATH names
// ("" when neither does), ~ expanded.
func (r *run) namedWrapper() string {
	p := r.h.WrapperPath
	if p == "" {
		p = r.e.Getenv("TMA_WRAPPER_PATH")
	}
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(r.env.Home(), p[1:])
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p
}

// removeWrittenWrapper is part of the last uninstall (no agent is wired
// any more, so nothing calls it): the shim install wrote where
// --wrapper-path / TMA_WRAPPER_PATH named a file that did not exist is
// removed like every other file tma created, its diff shown and confirmed.
// Any other file there is the user's and stays.
func (r *run) removeWrittenWrapper() {
	p := r.namedWrapper()
	if p == "" {
		return
	}
	b, err := os.ReadFile(p)
	if err != nil || !writtenWrapper(b) {
		return
	}
	if _, all := r.apply("wrapper", []install.Change{{Path: p, What: "tma-hook wrapper", Old: b, Existed: true, Remove: true}}); all {
		r.out("tma: removed the tma-hook wrapper install wrote at %s", r.env.Pretty(p))
	}
}
