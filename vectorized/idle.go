package vectorized

import (
	"context"
	"time"
)

// Idle sources (Flink's table.exec.source.idle-timeout) and other work
// done while a source waits.
//
// A source that produces no rows for the idle timeout is marked idle: its
// driver emits an Idle marker into its stream, and where streams merge
// (exchange hubs, multi-input operators) an idle input no longer holds the
// minimum watermark back; when every input of a merge is idle, the merge
// emits the maximum of their watermarks and forwards Idle itself. The
// first rows after Idle are preceded by an Active marker: the input's
// watermark counts again, and the merged watermark never goes backwards.
//
// A source runs Run in its own goroutine and calls its collector from
// there only; nothing else may call into a collector concurrently. So the
// marker must be emitted from the source's goroutine, also while the
// source waits for data (a throttle, the interval between directory
// listings, a channel). The driver hands the source a SourceCollector,
// which implements Waiter; a source waits through Sleep or WaitOn instead
// of time.After or a bare channel receive, and these wake up when the
// driver has something due (the idle timeout passed, or another goroutine
// called SourceCollector.Signal, say to inject a checkpoint barrier), run
// it on the source's goroutine (Waiter.Woken), and go on waiting. A source
// calls Sleep and WaitOn only where what it has emitted is exactly what
// its position (CheckpointedSource) covers. A source that blocks elsewhere
// (a busy read) is not marked idle until it calls its collector again.

// Waiter is implemented by a collector whose driver wants to act on the
// source's goroutine while the source waits for data.
type Waiter interface {
	// Wake returns a channel that receives when the driver has something
	// due; nil when nothing can be (a nil channel never receives).
	Wake() <-chan struct{}
	// Woken is called on the source's goroutine after the channel of
	// Wake received; it does what is due (it may emit markers).
	Woken(ctx context.Context) error
}

// Sleep waits for d (or until ctx is done, returning ctx.Err()); while it
// waits, a Waiter collector may act (emit markers into out). Sources call
// it wherever they wait for time to pass.
func Sleep(ctx context.Context, out Collector, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	w, _ := out.(Waiter)
	for {
		var wake <-chan struct{}
		if w != nil {
			wake = w.Wake()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		case <-wake:
			if err := w.Woken(ctx); err != nil {
				return err
			}
		}
	}
}

// WaitOn receives from ch (ok is false when ch is closed) or returns
// ctx.Err() when ctx is done first; while it waits, a Waiter collector
// may act (emit markers into out). Sources fed by a channel call it
// instead of a bare receive.
func WaitOn[T any](ctx context.Context, out Collector, ch <-chan T) (v T, ok bool, err error) {
	w, _ := out.(Waiter)
	for {
		var wake <-chan struct{}
		if w != nil {
			wake = w.Wake()
		}
		select {
		case <-ctx.Done():
			return v, false, ctx.Err()
		case v, ok = <-ch:
			return v, ok, nil
		case <-wake:
			if err := w.Woken(ctx); err != nil {
				return v, false, err
			}
		}
	}
}

// SourceCollector is the collector a driver hands to a source: it
// forwards everything to the collector it wraps and implements Waiter.
// With an idle timeout it emits Idle once the source has emitted no rows
// for the timeout (while it waits through Sleep or WaitOn, or at its next
// call), and Active before the first rows after Idle. The driver may
// register hooks (OnWake) that run on the source's goroutine when another
// goroutine calls Signal. Except Signal, its methods are called from the
// source's goroutine only.
type SourceCollector struct {
	out     Collector
	timeout time.Duration // 0: never idle
	last    time.Time     // when the source last emitted rows (or started)
	idle    bool
	wake    chan struct{} // signalled (capacity 1) by Signal and the idle timer
	timer   *time.Timer   // the idle timer, armed by Wake
	hooks   []func(ctx context.Context) error
}

var _ Waiter = (*SourceCollector)(nil)

// NewSourceCollector returns a collector forwarding to out that marks its
// source idle after idleTimeout without rows, counted from now (0: never).
func NewSourceCollector(out Collector, idleTimeout time.Duration) *SourceCollector {
	return &SourceCollector{out: out, timeout: idleTimeout, last: time.Now(), wake: make(chan struct{}, 1)}
}

// OnWake registers fn to run on the source's goroutine after Signal, when
// the source waits (or at its next call). Register before the source runs.
func (c *SourceCollector) OnWake(fn func(ctx context.Context) error) {
	c.hooks = append(c.hooks, fn)
}

// Signal wakes the source's wait to run the OnWake hooks. It may be
// called from any goroutine and never blocks.
func (c *SourceCollector) Signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Emit implements Collector.
func (c *SourceCollector) Emit(ctx context.Context, b Batch) error {
	if b.NumRows() > 0 {
		c.last = time.Now()
		if c.idle {
			c.idle = false
			if err := c.out.EmitMarker(ctx, Marker{Kind: Active}); err != nil {
				return err
			}
		}
	}
	return c.out.Emit(ctx, b)
}

// EmitMarker implements Collector. A source that only emits markers (a
// watermark) stays as idle or active as it was; an idle timeout that
// passed is acted on first.
func (c *SourceCollector) EmitMarker(ctx context.Context, m Marker) error {
	if m.Kind != EndOfInput {
		if err := c.markIdle(ctx); err != nil {
			return err
		}
	}
	return c.out.EmitMarker(ctx, m)
}

// Wake implements Waiter: the channel receives on Signal and when the
// idle timeout passes.
func (c *SourceCollector) Wake() <-chan struct{} {
	if c.timeout > 0 && !c.idle {
		d := time.Until(c.last.Add(c.timeout))
		if c.timer == nil {
			c.timer = time.AfterFunc(d, c.Signal)
		} else {
			c.timer.Reset(d)
		}
	}
	return c.wake
}

// Woken implements Waiter: it emits Idle when the timeout has passed and
// runs the OnWake hooks.
func (c *SourceCollector) Woken(ctx context.Context) error {
	if err := c.markIdle(ctx); err != nil {
		return err
	}
	for _, fn := range c.hooks {
		if err := fn(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (c *SourceCollector) markIdle(ctx context.Context) error {
	if c.timeout <= 0 || c.idle || time.Since(c.last) < c.timeout {
		return nil
	}
	c.idle = true
	return c.out.EmitMarker(ctx, Marker{Kind: Idle})
}

// Idle reports whether the source is marked idle.
func (c *SourceCollector) Idle() bool { return c.idle }

// Stop releases the collector's timer.
func (c *SourceCollector) Stop() {
	if c.timer != nil {
		c.timer.Stop()
	}
}
