package udf

import (
	"fmt"
	"runtime"
	"runtime/metrics"
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

// Watch guards one interpreter against calls that run too long or grow
// the heap too much: Begin marks the start of a call, End its end; a
// shared watchdog goroutine calls the interrupt function of a watch whose
// current call exceeds its time limit or its memory limit. Begin and End
// cost a few atomic operations (the watchdog keeps a coarse clock and the
// last heap sample).
//
// The memory limit bounds the growth of the process's live heap while a
// call runs (runtime/metrics' heap objects, sampled every tick; when a
// call's growth passes the limit the watchdog collects garbage and fires
// only if the live heap is still over). Go cannot attribute memory to a
// goroutine, so allocations of other goroutines during the call count
// too; the limit is a guard against runaway scripts, not an accounting.
// Single allocations larger than the limit are refused before they
// happen by the runtimes' own size checks (CheckAlloc).
type Watch struct {
	limit     time.Duration
	memLimit  atomic.Int64
	interrupt func()
	start     atomic.Int64 // coarse clock tick of the call start; 0 = idle
	base      atomic.Int64 // heap sample when the call began
	fired     atomic.Bool
	memory    atomic.Bool // fired because of the memory limit
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

// SetMemoryLimit sets the bytes of heap growth a call may cause (0 or
// less: none). Call it before the first Begin.
func (w *Watch) SetMemoryLimit(n int64) {
	if n < 0 {
		n = 0
	}
	w.memLimit.Store(n)
}

// MemoryLimit returns the memory limit (0 = none).
func (w *Watch) MemoryLimit() int64 { return w.memLimit.Load() }

// CheckAlloc reports an error when one allocation of n bytes would exceed
// the memory limit: the runtimes call it before operations whose result
// size they can compute ('x' * n, repeat, 2 ** n, join).
func (w *Watch) CheckAlloc(n float64) error {
	if w == nil {
		return nil
	}
	if l := w.memLimit.Load(); l > 0 && n > float64(l) {
		return &MemoryError{Limit: l, Need: n}
	}
	return nil
}

// CheckAllocAny is CheckAlloc for code that cannot tell which call it
// runs in: the methods of a runtime's built-in types (str.replace,
// str.ljust, bytes(n), …) are shared by every interpreter and get no
// context. It refuses n bytes when they are over the memory limit of
// every call running now, that is over the largest of their limits (the
// largest of all registered watches' limits when none runs); it refuses
// nothing when a running call has no limit. A call with a smaller limit
// than the largest is still stopped by the heap sampling after such an
// allocation. Below 1 mb it costs one comparison.
func CheckAllocAny(n float64) error {
	if n < 1<<20 {
		return nil
	}
	watchMu.Lock()
	defer watchMu.Unlock()
	var running, all int64
	anyRunning := false
	for w := range watches {
		l := w.memLimit.Load()
		if w.start.Load() != 0 {
			if l <= 0 {
				return nil
			}
			anyRunning = true
			running = max(running, l)
		}
		all = max(all, l)
	}
	limit := running
	if !anyRunning {
		limit = all
	}
	if limit > 0 && n > float64(limit) {
		return &MemoryError{Limit: limit, Need: n}
	}
	return nil
}

// IntTooLarge is the message for an integer operation whose result would
// have more than limit bits: the runtimes refuse such operations because
// arbitrary-precision arithmetic cannot be interrupted by the time limit.
func IntTooLarge(bits float64, limit int) string {
	return fmt.Sprintf("the integer result would have %.0f bits, over the limit of %d bits for one operation in a script UDF (longer arithmetic could not be stopped by tablerun.udf.timeout)", bits, limit)
}

// MemoryError is a script's allocation over its memory limit.
type MemoryError struct {
	Limit int64
	Need  float64 // bytes the refused allocation needed; 0 when the heap grew over the limit
}

func (e *MemoryError) Error() string {
	if e.Need > 0 {
		return fmt.Sprintf("the call would allocate %s, over the memory limit of %s (tablerun.udf.memory-limit)", FormatBytes(e.Need), FormatBytes(float64(e.Limit)))
	}
	return fmt.Sprintf("the call exceeded the memory limit of %s (tablerun.udf.memory-limit)", FormatBytes(float64(e.Limit)))
}

// FormatBytes spells a byte count as Flink spells memory sizes (256 mb).
func FormatBytes(n float64) string {
	switch {
	case n >= 1<<40:
		return fmt.Sprintf("%.1f tb", n/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.1f gb", n/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f mb", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f kb", n/(1<<10))
	}
	return fmt.Sprintf("%.0f bytes", n)
}

// Begin marks the start of a call.
func (w *Watch) Begin() {
	if w.fired.Load() {
		w.fired.Store(false)
		w.canceled.Store(false)
		w.memory.Store(false)
	}
	if w.memLimit.Load() > 0 {
		w.base.Store(heapNow.Load())
	}
	w.start.Store(clock.Load())
}

// OverMemory reports whether the current call was interrupted because the
// heap grew over the memory limit.
func (w *Watch) OverMemory() bool { return w.memory.Load() }

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

// heapNow is the last sample of the heap's object bytes (live and not
// yet swept), taken by the watchdog every tick.
var heapNow atomic.Int64

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func sampleHeap() int64 {
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(heapSample[0].Value.Uint64())
}

// minForcedGC spaces the collections the watchdog forces to tell a
// call's live growth from garbage.
const minForcedGC = 100 * time.Millisecond

func watchdog() {
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	var lastGC time.Time
	for range t.C {
		now := clock.Add(1)
		heap := sampleHeap()
		heapNow.Store(heap)
		if suspect := overMemory(heap); suspect && time.Since(lastGC) >= minForcedGC {
			// The heap counts garbage too: collect, then fire only the
			// calls whose growth is still over their limit.
			runtime.GC()
			lastGC = time.Now()
			heap = sampleHeap()
			heapNow.Store(heap)
			fireOverMemory(heap)
		}
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

// overMemory reports whether a running call's heap growth passes its
// memory limit.
func overMemory(heap int64) bool {
	watchMu.Lock()
	defer watchMu.Unlock()
	for w := range watches {
		if l := w.memLimit.Load(); l > 0 && w.start.Load() != 0 && !w.fired.Load() && heap-w.base.Load() > l {
			return true
		}
	}
	return false
}

// fireOverMemory interrupts the running calls whose heap growth passes
// their memory limit.
func fireOverMemory(heap int64) {
	watchMu.Lock()
	defer watchMu.Unlock()
	for w := range watches {
		if w.start.Load() != 0 && w.base.Load() > heap {
			// the sample at Begin counted garbage collected since
			w.base.Store(heap)
		}
		if l := w.memLimit.Load(); l > 0 && w.start.Load() != 0 && !w.fired.Load() && heap-w.base.Load() > l {
			w.memory.Store(true)
			w.fired.Store(true)
			w.interrupt()
		}
	}
}
