package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// ---- timestamp ± constant INTERVAL DAY TO SECOND ----

// tsIntervalNode adds a constant day-time interval (milliseconds) to a
// TIMESTAMP or TIMESTAMP_LTZ column, as every watermark expression
// `ts - INTERVAL '5' SECOND` does. A batch where some row overflows is
// handed to the generic adapter, which reports the function's error.
type tsIntervalNode struct {
	ts      node
	delta   int64 // in the column's unit (micro- or nanoseconds)
	t       types.Type
	at      arrow.DataType
	generic node
}

// newTSInterval returns the kernel for (ts + iv), (ts - iv) or (iv + ts)
// with iv a non-NULL day-time interval literal, or nil.
func (c *compiler) newTSInterval(x *logical.Call, args []node) node {
	if (x.Name != "+" && x.Name != "-") || len(args) != 2 {
		return nil
	}
	ts, iv := args[0], args[1]
	if x.Name == "+" && ts.typ().Kind == types.IntervalDayTime {
		ts, iv = iv, ts
	}
	k := ts.typ().Kind
	if (k != types.Timestamp && k != types.TimestampLTZ) || iv.typ().Kind != types.IntervalDayTime || !x.T.EqualIgnoringNull(ts.typ()) {
		return nil
	}
	l, ok := iv.(*litNode)
	if !ok || l.v == nil {
		return nil
	}
	ms, ok := l.v.(int64)
	if !ok {
		return nil
	}
	scale := int64(1000)
	if types.IsNanoTimestamp(x.T) {
		scale = 1_000_000
	}
	d := ms * scale
	if ms != 0 && d/scale != ms {
		return nil
	}
	if x.Name == "-" {
		if d == -d && d != 0 {
			return nil
		}
		d = -d
	}
	at, err := types.ArrowType(x.T)
	if err != nil {
		return nil
	}
	def, err := x.Definition()
	if err != nil {
		return nil
	}
	gen, err := c.generic(x, def, args)
	if err != nil {
		return nil
	}
	return &tsIntervalNode{ts: ts, delta: d, t: x.T, at: at, generic: gen}
}

func (n *tsIntervalNode) typ() types.Type { return n.t }
func (n *tsIntervalNode) canFail() bool   { return true } // overflow

func (n *tsIntervalNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.ts.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	ta, ok := a.(*array.Timestamp)
	if !ok {
		return n.generic.eval(rec, mem)
	}
	vals := ta.TimestampValues()
	validity, nulls := validityOf(mem, rows, a)
	buf, out := newFixed[int64](mem, rows)
	d := n.delta
	for i, v := range vals {
		r := int64(v) + d
		if (d >= 0) != (r >= int64(v)) && ta.IsValid(i) {
			buf.Release()
			if validity != nil {
				validity.Release()
			}
			return n.generic.eval(rec, mem)
		}
		out[i] = r
	}
	return finish(n.at, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

var _ node = (*tsIntervalNode)(nil)
