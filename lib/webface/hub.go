package webface

import (
	"context"
	"sync"
	"time"

	"github.com/tmaproject/tma/lib/serve"
)

// hub runs one cycle per interval for every open event stream together,
// never one per stream, and only while one is open. The snapshot it last
// took answers /agents while it is younger than the interval, so a page
// that refetches on an event costs the host no second cycle.
type hub struct {
	cycle func(ctx context.Context) (*serve.Snapshot, error)
	every time.Duration
	log   func(string, ...any)
	// cycleMu holds the host's cycles (and cards, which run one) to one
	// at a time.
	cycleMu sync.Mutex

	mu      sync.Mutex
	subs    map[chan *serve.Snapshot]bool
	last    *serve.Snapshot
	lastAt  time.Time
	running bool
	done    chan struct{}
	closed  bool
}

func newHub(cycle func(context.Context) (*serve.Snapshot, error), every time.Duration, log func(string, ...any)) *hub {
	return &hub{cycle: cycle, every: every, log: log, subs: map[chan *serve.Snapshot]bool{}, done: make(chan struct{})}
}

func (h *hub) run(ctx context.Context) (*serve.Snapshot, error) {
	h.cycleMu.Lock()
	snap, err := h.cycle(ctx)
	h.cycleMu.Unlock()
	if err == nil {
		h.mu.Lock()
		h.last, h.lastAt = snap, time.Now()
		h.mu.Unlock()
	}
	return snap, err
}

// fresh is the last snapshot when it is younger than the interval, else a
// new cycle's.
func (h *hub) fresh(ctx context.Context) (*serve.Snapshot, error) {
	h.mu.Lock()
	if h.last != nil && time.Since(h.lastAt) < h.every {
		s := h.last
		h.mu.Unlock()
		return s, nil
	}
	h.mu.Unlock()
	return h.run(ctx)
}

// stale makes the next fresh run a cycle: after a fire, the page's
// refetch must not be answered from before it.
func (h *hub) stale() {
	h.mu.Lock()
	h.lastAt = time.Time{}
	h.mu.Unlock()
}

func (h *hub) subscribe() (<-chan *serve.Snapshot, func()) {
	ch := make(chan *serve.Snapshot, 1)
	h.mu.Lock()
	h.subs[ch] = true
	if !h.running && !h.closed {
		h.running = true
		go h.loop()
	}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

func (h *hub) loop() {
	for {
		h.mu.Lock()
		if len(h.subs) == 0 || h.closed {
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		snap, err := h.run(ctx)
		cancel()
		if err != nil {
			h.log("event stream: cycle: %v", err)
		} else {
			h.mu.Lock()
			for ch := range h.subs {
				// A slow reader gets the newest snapshot, not a queue.
				select {
				case <-ch:
				default:
				}
				ch <- snap
			}
			h.mu.Unlock()
		}
		select {
		case <-time.After(h.every):
		case <-h.done:
		}
	}
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}
