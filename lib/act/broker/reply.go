package broker

import (
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/fleet"
	"github.com/tmaproject/tma/lib/lane"
)

// heldRequest is the reply-lane request a hook is holding on pane right
// now, if the action has a [hook] arm for the pane's agent.
func (b *Broker) heldRequest(a *act.Action, f *fleet.Fleet, pane, agent string) (string, act.HookArm, bool) {
	arm, ok := a.Hook[agent]
	p := f.Pane(pane)
	if !ok || p == nil || p.Opts[lane.Option] == "" {
		return "", arm, false
	}
	id := p.Opts[lane.Option]
	_, held := lane.Held(lane.Dir(b.Getenv), id, pane, time.Now().UnixMilli())
	return id, arm, held
}

// reply hands arm's verdict to the hook holding request id on pane: write
// it, wait up to lane.TakeWait for the hook to take it, and withdraw it if
// none did. It reports whether the hook took it; false means nothing
// reached claude over the lane, and the caller sends the keys.
func (b *Broker) reply(pane, id string, arm act.HookArm) bool {
	dir := lane.Dir(b.Getenv)
	if _, held := lane.Held(dir, id, pane, time.Now().UnixMilli()); !held {
		return false
	}
	if err := lane.Ensure(dir); err != nil {
		b.note("note: reply lane: %v; sending the keys", err)
		return false
	}
	if err := lane.Offer(dir, lane.Verdict{ID: id, Behavior: arm.Reply, AtMS: time.Now().UnixMilli()}); err != nil {
		b.note("note: reply lane: %v; sending the keys", err)
		return false
	}
	taken, err := lane.AwaitTake(dir, id, lane.TakeWait)
	if err != nil {
		b.note("note: reply lane: cannot withdraw the verdict for request %s: %v; sending the keys", id, err)
		return false
	}
	if !taken {
		b.note("note: no hook took request %s within %s; sending the keys", id, lane.TakeWait)
	}
	return taken
}
