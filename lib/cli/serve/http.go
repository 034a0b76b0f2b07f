package servecmd

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/device"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/webface"
)

// serveHTTP is `tma serve --http [ADDR]`: the web face in the foreground,
// over the same host functions a --stdio connection uses, until a signal.
func serveHTTP(e *common.Env, c *cli, logf func(string, ...any)) int {
	dir := common.ConfigDir(e)
	if dir == "" {
		e.Errorf("no config directory: set HOME, XDG_CONFIG_HOME or TMA_CONFIG_DIR")
		return common.ExitFail
	}
	rl, err := c.Globals.NewReloader(e)
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	hc := rl.Get().Config.Serve.HTTP
	addr, cert, key := hc.Listen, hc.TLSCert, hc.TLSKey
	if c.Serve.Addr != "" {
		addr = c.Serve.Addr
	}
	if c.Serve.TLSCert != "" || c.Serve.TLSKey != "" {
		cert, key = c.Serve.TLSCert, c.Serve.TLSKey
	}
	if (cert == "") != (key == "") {
		e.Errorf("--tls-cert and --tls-key go together: give both or neither")
		return common.ExitUsage
	}
	if err := webface.CheckListen(addr, cert != ""); err != nil {
		e.Errorf("%v", err)
		return common.ExitUsage
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		e.Errorf("--http %s: %v", addr, err)
		return common.ExitFail
	}
	utf8Locale(e)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	h := &host{e: e, g: &c.Globals, rl: rl, dir: dir, git: gitinfo.New()}
	hosts := append([]string(nil), hc.Hosts...)
	if hc.PublicURL != "" {
		hosts = append(hosts, webface.HostOf(hc.PublicURL))
	}
	web := webface.New(webface.Host{
		DevicesPath: device.Path(dir), Cycle: h.cycle, ActionKind: h.actionKind, Fire: h.fire,
		Receipts: h.receipts, Card: h.card, Now: time.Now, Log: logf,
	}, webface.Options{Listen: ln.Addr().String(), Hosts: hosts, Version: common.Version, HostName: common.Host()})
	srv := &http.Server{Handler: web, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	scheme := "http"
	if cert != "" {
		scheme = "https"
	}
	logf("web face on %s://%s (pair a device: tma device pair NAME --web)", scheme, ln.Addr())
	done := make(chan error, 1)
	go func() {
		if cert != "" {
			done <- srv.ServeTLS(ln, cert, key)
		} else {
			done <- srv.Serve(ln)
		}
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		logf("ended by signal")
		web.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
		err = <-done
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		e.Errorf("--http %s: %v", addr, err)
		return common.ExitFail
	}
	return common.ExitOK
}
