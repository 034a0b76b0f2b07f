// Package waitcmd is the tma-wait command, the consumer end of the follow
// pipeline (tma-scan --follow | tma-fold | tma-stamp | tma-wait): `wait`
// blocks until a target reaches a state, `subscribe` streams what each cycle
// saw.
package waitcmd
