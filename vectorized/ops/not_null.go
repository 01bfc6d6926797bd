package ops

import (
	"context"
	"fmt"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/vectorized"
)

// ClassTableException is the Java class Flink reports for a NULL written
// into a NOT NULL sink column.
const ClassTableException = "org.apache.flink.table.api.TableException"

// NotNullEnforcer checks the NOT NULL columns of a sink before its rows are
// written (Flink's table.exec.sink.not-null-enforcer): with Drop unset a
// NULL in such a column fails the job with Flink's message, with Drop set
// the row is dropped silently.
type NotNullEnforcer struct {
	cols  []int
	names []string
	drop  bool
}

var _ vectorized.Operator = (*NotNullEnforcer)(nil)

// NewNotNullEnforcer checks the columns cols (named names, for the error
// message) of every batch; drop selects the DROP strategy over ERROR.
func NewNotNullEnforcer(cols []int, names []string, drop bool) *NotNullEnforcer {
	return &NotNullEnforcer{cols: cols, names: names, drop: drop}
}

// NotNullError is the error of a NULL written into a NOT NULL sink column.
func NotNullError(column string) error {
	return &function.EvalError{Class: ClassTableException, Msg: fmt.Sprintf("Column '%s' is NOT NULL, however, a null value is being written into it. "+
		"You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently.", column)}
}

// Open implements vectorized.Operator.
func (n *NotNullEnforcer) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (n *NotNullEnforcer) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	rec := b.Rec
	if rec == nil || rec.NumRows() == 0 {
		return out.Emit(ctx, b)
	}
	var bad []bool // rows to drop
	for i, c := range n.cols {
		if c < 0 || c >= int(rec.NumCols()) {
			return fmt.Errorf("internal: NOT NULL check of column $%d of %d columns", c, rec.NumCols())
		}
		a := rec.Column(c)
		if a.NullN() == 0 {
			continue
		}
		if !n.drop {
			return NotNullError(n.names[i])
		}
		if bad == nil {
			bad = make([]bool, rec.NumRows())
		}
		for r := 0; r < a.Len(); r++ {
			if a.IsNull(r) {
				bad[r] = true
			}
		}
	}
	if bad == nil {
		return out.Emit(ctx, b)
	}
	sel := make([]int32, 0, len(bad))
	for r, x := range bad {
		if !x {
			sel = append(sel, int32(r))
		}
	}
	if len(sel) == 0 {
		return nil
	}
	g, err := Gather(rec, sel, nil)
	if err != nil {
		return err
	}
	var kinds []changelog.RowKind
	if b.Kinds != nil {
		kinds = make([]changelog.RowKind, len(sel))
		for i, s := range sel {
			kinds[i] = b.Kinds[s]
		}
	}
	return out.Emit(ctx, vectorized.Batch{Rec: g, Kinds: kinds})
}

// OnMarker implements vectorized.Operator.
func (n *NotNullEnforcer) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (n *NotNullEnforcer) Close() error { return nil }
