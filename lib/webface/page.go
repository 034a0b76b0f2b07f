package webface

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
)

// page is the whole web face: one file, no CDN, no build step.
//
//go:embed page.html
var page []byte

// csp allows the page's own inline script and style by their digests and
// nothing else: no other script, no frame, and fetch only to this origin.
var csp = func() string {
	hash := func(open, close string) string {
		i := bytes.Index(page, []byte(open))
		j := bytes.Index(page, []byte(close))
		if i < 0 || j < i {
			return "'none'"
		}
		sum := sha256.Sum256(page[i+len(open) : j])
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; script-src " + hash("<script>", "</script>") + "; style-src " + hash("<style>", "</style>") +
		"; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	_, _ = w.Write(page)
}
