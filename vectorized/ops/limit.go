package ops

import (
	"context"

	"github.com/tablerun/tablerun/vectorized"
)

// Limit skips the first Offset rows and passes at most Fetch rows (Fetch <
// 0: all). Once it has passed Fetch rows, Process returns a *LimitReached
// so that the driver stops the input early.
type Limit struct {
	offset, fetch int64
	skipped       int64
	passed        int64
	done          *LimitReached
}

var _ vectorized.Operator = (*Limit)(nil)

// NewLimit returns a Limit operator.
func NewLimit(offset, fetch int64) *Limit {
	l := &Limit{offset: max(offset, 0), fetch: fetch}
	l.done = &LimitReached{op: l}
	return l
}

// Open implements vectorized.Operator.
func (l *Limit) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (l *Limit) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if l.fetch >= 0 && l.passed >= l.fetch {
		return l.done
	}
	n := int64(b.NumRows())
	lo := int64(0)
	if l.skipped < l.offset {
		skip := min(l.offset-l.skipped, n)
		l.skipped += skip
		lo = skip
	}
	hi := n
	if l.fetch >= 0 {
		hi = min(n, lo+l.fetch-l.passed)
	}
	if hi > lo {
		nb := b
		if lo != 0 || hi != n {
			nb = vectorized.Batch{Rec: b.Rec.NewSlice(lo, hi)}
			if b.Kinds != nil {
				nb.Kinds = b.Kinds[lo:hi]
			}
		}
		l.passed += hi - lo
		if err := out.Emit(ctx, nb); err != nil {
			return err
		}
	}
	if l.fetch >= 0 && l.passed >= l.fetch {
		return l.done
	}
	return nil
}

// OnMarker implements vectorized.Operator.
func (l *Limit) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (l *Limit) Close() error { return nil }
