package webface

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CheckListen is the rule for where --http may listen: a loopback address,
// or any address when TLS is configured. Anything else is refused with the
// two routes that reach a loopback server safely.
func CheckListen(addr string, tls bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: not a host:port address: %v", addr, err)
	}
	if IsLoopback(host) || tls {
		return nil
	}
	where := host
	if where == "" {
		where = "every interface"
	}
	return fmt.Errorf(`--http %s listens on %s, beyond this machine, and a device's token would cross the network in the clear.
Give --tls-cert and --tls-key (or [serve.http] tls_cert and tls_key), or keep it on loopback and reach it by one of the two safe routes (docs/serve.md):
  ssh -L %s:127.0.0.1:%s <this host>     then open http://127.0.0.1:%s on the machine you ssh from
  tailscale serve --bg %s                    then open https://<this machine>.<tailnet>.ts.net on the tailnet`, addr, where, port, port, port, port)
}

// IsLoopback reports whether host (no port) names this machine only.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// allowedHost is the DNS-rebinding rule: the Host header must be the bound
// address, a loopback name (any port: an ssh -L may forward from another),
// or a configured name.
func (s *Server) allowedHost(h string) bool {
	if h == "" {
		return false
	}
	if strings.EqualFold(h, s.opt.Listen) {
		return true
	}
	name := h
	if n, _, err := net.SplitHostPort(h); err == nil {
		name = n
	}
	if IsLoopback(name) {
		return true
	}
	for _, a := range s.opt.Hosts {
		if strings.EqualFold(a, h) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// HostOf is the host[:port] of a public URL, for Options.Hosts.
func HostOf(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil {
		return ""
	}
	return u.Host
}
