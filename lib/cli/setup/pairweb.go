package setupcmd

import (
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/webface"
)

// pairWeb offers a one-time code for a browser and prints the URL that
// redeems it, as text and as a QR code. Nothing is paired until the page
// trades the code for its token at POST /api/v1/pair.
func pairWeb(e *common.Env, g *common.Globals, path, name string, scopes []string, now time.Time, fail func(error) int) int {
	if err := device.CheckName(name); err != nil {
		return fail(usageErr{err.Error()})
	}
	cfg, _, err := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if err != nil {
		return fail(err)
	}
	code, err := device.Offer(path, name, scopes, now)
	if err != nil {
		return fail(err)
	}
	url := PairURL(cfg.Serve.HTTP) + "/pair#" + code
	out := e.Stdout
	fmt.Fprintf(out, "pair %s (scopes: %s): open this URL on the device within %d minutes; it works once:\n\n  %s\n\n",
		name, strings.Join(scopes, ", "), int(device.PairingTTL/time.Minute), url)
	qr, err := webface.TerminalQR(url)
	if err == nil {
		fmt.Fprint(out, qr)
	}
	fmt.Fprintf(out, "\nthe page needs tma serve --http running (or [serve.http] enabled = true); `tma device list` shows %s once it is paired\n", name)
	return common.ExitOK
}

// PairURL is where a device reaches the web face: public_url when set,
// else the listen address (a wildcard one named by this host's name).
func PairURL(h config.ServeHTTP) string {
	if h.PublicURL != "" {
		return strings.TrimRight(h.PublicURL, "/")
	}
	scheme := "http"
	if h.TLSCert != "" {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(h.Listen)
	if err != nil {
		return scheme + "://" + h.Listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host, _ = os.Hostname()
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
