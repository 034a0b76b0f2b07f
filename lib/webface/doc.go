// Package webface is `tma serve --http`: the same devices, scopes, slots,
// receipts, freshness checks and audit as `tma serve --stdio`, over HTTP,
// with one embedded page a phone can answer from (docs/serve.md, "The web
// face").
//
// It holds no authority of its own. Every request is authorized from the
// device store, re-read per request, by the digest of the bearer token it
// carries (device.WebID); a dispatch is gated by serve.Gate, the scope
// table --stdio uses, before the broker is called, and the broker (what
// the host wires in) is tma act itself, so the ledger, the lock, the
// guarded send-keys, --expect-episode-ms and the act log are the local
// fire's. What a read-only device sees is cut by serve.CardBody, as over
// --stdio.
//
// The rules that keep a browser from being turned against the host: only
// a bearer token authorizes (no cookie, so a cross-site form carries no
// authority), a Host header that is not this server's is refused 421 (a
// DNS-rebinding page would name its own host), a body over 64 KiB is 413,
// and pairing attempts share one small bucket (429). This package opens no
// socket: the command listens and hands it a net.Listener.
package webface
