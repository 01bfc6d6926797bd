package udf

import (
	"sync"
	"sync/atomic"
	"time"
)

// Pool keeps idle interpreters of one compiled program. Get returns an
// idle one or makes a new one; Put returns it. Interpreters are never
// shared by two goroutines at once. The idle set is a sync.Pool (a
// lock-free per-CPU fast path): the garbage collector may drop idle
// interpreters, so runtimes release an interpreter's resources with a
// runtime cleanup rather than relying on drop.
type Pool[T any] struct {
	p      sync.Pool
	make   func() (T, error)
	drop   func(T)
	closed atomic.Bool
}

// NewPool returns a pool whose interpreters come from mk; drop (may be
// nil) releases an interpreter that the pool discards after Clear.
func NewPool[T any](mk func() (T, error), drop func(T)) *Pool[T] {
	return &Pool[T]{make: mk, drop: drop}
}

// Get borrows an interpreter.
func (p *Pool[T]) Get() (T, error) {
	if x, ok := p.p.Get().(T); ok {
		return x, nil
	}
	return p.make()
}

// Put returns an interpreter to the pool (after Clear it is dropped).
func (p *Pool[T]) Put(x T) {
	if p.closed.Load() {
		if p.drop != nil {
			p.drop(x)
		}
		return
	}
	p.p.Put(x)
}

// Clear drops the idle interpreters; interpreters returned later are
// dropped too.
func (p *Pool[T]) Clear() {
	p.closed.Store(true)
	for {
		x, ok := p.p.Get().(T)
		if !ok {
			return
		}
		if p.drop != nil {
			p.drop(x)
		}
	}
}

// Watch guards one interpreter against calls that run too long: Begin
// marks the start of a call, End its end; a shared watchdog goroutine calls
// the interrupt function of a watch whose current call exceeds its limit.
// Begin and End cost two atomic stores (the watchdog keeps a coarse clock).
type Watch struct {
	limit     time.Duration
	interrupt func()
	start     atomic.Int64 // coarse clock tick of the call start; 0 = idle
	fired     atomic.Bool
	// done, when set (SetDone), is the statement's cancellation: the
	// watchdog interrupts a running call once it is closed.
	done     atomic.Pointer[<-chan struct{}]
	canceled atomic.Bool
}

const tickEvery = 10 * time.Millisecond

var (
	watchMu   sync.Mutex
	watches   = map[*Watch]struct{}{}
	clock     atomic.Int64
	watchOnce sync.Once
)

// NewWatch registers a watch that calls interrupt when a call runs longer
// than limit. A zero limit disables it. Call Close when the interpreter is
// dropped.
//
// A watch without a limit is registered too: SetDone's cancellation still
// interrupts its calls.
func NewWatch(limit time.Duration, interrupt func()) *Watch {
	w := &Watch{limit: limit, interrupt: interrupt}
	watchOnce.Do(func() {
		clock.Store(1)
		go watchdog()
	})
	watchMu.Lock()
	watches[w] = struct{}{}
	watchMu.Unlock()
	return w
}

// Begin marks the start of a call.
func (w *Watch) Begin() {
	if w.fired.Load() {
		w.fired.Store(false)
		w.canceled.Store(false)
	}
	w.start.Store(clock.Load())
}

// SetDone makes the watch interrupt calls when done is closed (the
// statement was cancelled); nil forgets it. The check costs the watchdog
// one non-blocking receive per tick.
func (w *Watch) SetDone(done <-chan struct{}) {
	if done == nil {
		if w.done.Load() != nil {
			w.done.Store(nil)
		}
		return
	}
	if p := w.done.Load(); p != nil && *p == done {
		return
	}
	w.done.Store(&done)
}

// Canceled reports whether the current call was interrupted because the
// statement was cancelled (not by the time limit).
func (w *Watch) Canceled() bool { return w.canceled.Load() }

// End marks the end of a call and reports whether the watchdog
// interrupted it.
func (w *Watch) End() bool {
	w.start.Store(0)
	return w.fired.Load()
}

// Touch marks the start of the next call in a run of calls begun with
// Begin and ended with End (a chunk of rows): the call's start moves to
// the current coarse tick, which costs one or two atomic loads when the
// tick has not changed (instead of End's and Begin's stores).
func (w *Watch) Touch() {
	if c := clock.Load(); c != w.start.Load() {
		w.start.Store(c)
	}
}

// Fired reports whether the current call was interrupted.
func (w *Watch) Fired() bool { return w.fired.Load() }

// Limit returns the time limit.
func (w *Watch) Limit() time.Duration { return w.limit }

// Close unregisters the watch.
func (w *Watch) Close() {
	watchMu.Lock()
	delete(watches, w)
	watchMu.Unlock()
}

func watchdog() {
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for range t.C {
		now := clock.Add(1)
		watchMu.Lock()
		for w := range watches {
			s := w.start.Load()
			if s == 0 || w.fired.Load() {
				continue
			}
			if w.limit > 0 && time.Duration(now-s)*tickEvery > w.limit {
				w.fired.Store(true)
				w.interrupt()
				continue
			}
			if p := w.done.Load(); p != nil {
				select {
				case <-*p:
					w.canceled.Store(true)
					w.fired.Store(true)
					w.interrupt()
				default:
				}
			}
		}
		watchMu.Unlock()
	}
}
