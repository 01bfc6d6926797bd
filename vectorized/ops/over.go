package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// OverSpec describes an OverAggregate.
type OverSpec struct {
	Partition []int
	Order     []logical.SortKey
	// Rows selects a ROWS frame (else RANGE: peers share their values).
	Rows bool
	// Bounded ROWS frames hold the current row and Preceding rows before
	// it.
	Bounded   bool
	Preceding int64
	Calls     []logical.OverCall
	// In and Out are the input and output column types; Arrow is the
	// output's Arrow schema (nil: derived from Out).
	In, Out types.Schema
	Arrow   *arrow.Schema
	// Streaming computes each row's values when it arrives (processing
	// time) or, with Rowtime, on the watermark in event-time order; batch
	// mode sorts all rows at EndOfInput.
	Streaming, Rowtime bool
}

// OverAggregate computes window functions over the frame from the
// partition's first row to the current row (and its peers for RANGE).
type OverAggregate struct {
	spec    OverSpec
	order   rowOrder
	buf     rowBuffer
	rows    [][]any // batch: all rows; rowtime: pending rows
	parts   map[string]*overPart
	wm      int64
	hasWM   bool
	timeCol int
}

// overPart is the running state of one partition.
type overPart struct {
	accs   []*overAcc
	n      int64 // rows so far (ROW_NUMBER)
	rank   int64
	dense  int64
	last   []any // last row (peer detection)
	inited bool
	window [][]any // bounded ROWS frames: the rows of the frame
}

var _ vectorized.Operator = (*OverAggregate)(nil)

// NewOverAggregate returns an OverAggregate.
func NewOverAggregate(spec OverSpec) (*OverAggregate, error) {
	for _, c := range spec.Calls {
		switch c.Name {
		case "ROW_NUMBER", "RANK", "DENSE_RANK", "COUNT", "COUNT_STAR", "SUM", "MIN", "MAX":
		case "AVG":
			if len(c.Args) == 1 && spec.In[c.Args[0]].Type.Kind == types.Decimal {
				return nil, fmt.Errorf("not supported yet: AVG of DECIMAL in OVER")
			}
		default:
			return nil, fmt.Errorf("not supported yet: window function %s", c.Name)
		}
	}
	o := &OverAggregate{spec: spec, order: newRowOrder(spec.Order, spec.In), buf: rowBuffer{schema: spec.Out, out: spec.Arrow},
		parts: map[string]*overPart{}, timeCol: -1}
	if len(spec.Order) > 0 {
		o.timeCol = spec.Order[0].Index
	}
	return o, nil
}

// Open implements vectorized.Operator.
func (o *OverAggregate) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (o *OverAggregate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	rows := types.RecordRows(b.Rec, o.spec.In)
	for i := range rows {
		if b.Kind(i) != changelog.Insert {
			return fmt.Errorf("not supported yet: OVER aggregation over an updating input")
		}
	}
	switch {
	case !o.spec.Streaming:
		o.rows = append(o.rows, rows...)
		return nil
	case o.spec.Rowtime:
		for _, r := range rows {
			if o.hasWM && o.timeCol >= 0 && r[o.timeCol] != nil && eventMs(r[o.timeCol]) <= o.wm {
				continue // late: dropped as Flink does
			}
			o.rows = append(o.rows, r)
		}
		return nil
	}
	for _, r := range rows {
		if err := o.emitGroup([][]any{r}); err != nil {
			return err
		}
	}
	return o.buf.flush(ctx, out)
}

// eventMs converts a TIMESTAMP/TIMESTAMP_LTZ canonical value (micros) to
// milliseconds.
func eventMs(v any) int64 {
	switch x := v.(type) {
	case int64:
		return floorDiv(x, 1000)
	}
	return 0
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// OnMarker implements vectorized.Operator.
func (o *OverAggregate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	switch {
	case m.Kind == vectorized.EndOfInput && (!o.spec.Streaming || o.spec.Rowtime):
		if err := o.release(false, 0); err != nil {
			return err
		}
		if err := o.buf.flush(ctx, out); err != nil {
			return err
		}
	case m.Kind == vectorized.Watermark && o.spec.Streaming && o.spec.Rowtime:
		o.wm, o.hasWM = m.Watermark, true
		if err := o.release(true, m.Watermark); err != nil {
			return err
		}
		if err := o.buf.flush(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// release sorts the buffered rows (those at or before the watermark when
// upTo) by partition and order and computes them.
func (o *OverAggregate) release(upTo bool, wm int64) error {
	var ready, keep [][]any
	for _, r := range o.rows {
		if upTo && (o.timeCol < 0 || r[o.timeCol] == nil || eventMs(r[o.timeCol]) > wm) {
			keep = append(keep, r)
			continue
		}
		ready = append(ready, r)
	}
	o.rows = keep
	if len(ready) == 0 {
		return nil
	}
	pt := make([]types.Type, len(o.spec.Partition))
	for i, p := range o.spec.Partition {
		pt[i] = o.spec.In[p].Type
	}
	cmpRows := func(a, b []any) int {
		if !o.spec.Streaming {
			for i, p := range o.spec.Partition {
				if c := compareNullable(a[p], b[p], pt[i]); c != 0 {
					return c
				}
			}
		}
		return o.order.compare(a, b)
	}
	slices.SortStableFunc(ready, cmpRows)
	// peers: same partition and equal order keys
	for i := 0; i < len(ready); {
		j := i + 1
		if !o.spec.Rows || o.spec.Streaming {
			for j < len(ready) && cmpRows(ready[i], ready[j]) == 0 {
				j++
			}
		}
		if o.spec.Streaming {
			// group by partition within the peers, in order of appearance
			groups := map[string][][]any{}
			var order []string
			for _, r := range ready[i:j] {
				k := keyOf(r, o.spec.Partition)
				if _, ok := groups[k]; !ok {
					order = append(order, k)
				}
				groups[k] = append(groups[k], r)
			}
			for _, k := range order {
				g := groups[k]
				if o.spec.Rows {
					for _, r := range g {
						if err := o.emitGroup([][]any{r}); err != nil {
							return err
						}
					}
					continue
				}
				if err := o.emitGroup(g); err != nil {
					return err
				}
			}
		} else if err := o.emitGroup(ready[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func compareNullable(a, b any, t types.Type) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return function.CompareValues(a, b, t)
}

// emitGroup adds a group of peer rows of one partition (one row for ROWS
// frames) to the running state and emits them with their values.
func (o *OverAggregate) emitGroup(g [][]any) error {
	k := keyOf(g[0], o.spec.Partition)
	p, ok := o.parts[k]
	if !ok {
		p = &overPart{}
		for _, c := range o.spec.Calls {
			var t types.Type
			if len(c.Args) == 1 {
				t = o.spec.In[c.Args[0]].Type
			}
			p.accs = append(p.accs, &overAcc{name: c.Name, argT: t, resT: c.T})
		}
		o.parts[k] = p
	}
	// ranks: a new peer group starts unless it equals the last row
	newPeer := !p.inited || o.order.compare(p.last, g[0]) != 0
	if o.spec.Bounded {
		// a ROWS frame of the last Preceding+1 rows: recompute
		p.window = append(p.window, g[0])
		if int64(len(p.window)) > o.spec.Preceding+1 {
			p.window = p.window[1:]
		}
		for idx, c := range o.spec.Calls {
			if c.IsRanking() {
				continue
			}
			p.accs[idx] = &overAcc{name: c.Name, argT: p.accs[idx].argT, resT: c.T}
			for _, r := range p.window {
				var v any
				if len(c.Args) == 1 {
					v = r[c.Args[0]]
				}
				if err := p.accs[idx].add(v); err != nil {
					return err
				}
			}
		}
	}
	for idx, c := range o.spec.Calls {
		if c.IsRanking() || o.spec.Bounded {
			continue
		}
		for _, r := range g {
			var v any
			if len(c.Args) == 1 {
				v = r[c.Args[0]]
			}
			if err := p.accs[idx].add(v); err != nil {
				return err
			}
		}
	}
	if newPeer {
		p.rank = p.n + 1
		p.dense++
	}
	p.inited, p.last = true, g[len(g)-1]
	for _, r := range g {
		p.n++
		row := make([]any, 0, len(r)+len(o.spec.Calls))
		row = append(row, r...)
		for idx, c := range o.spec.Calls {
			switch c.Name {
			case "ROW_NUMBER":
				row = append(row, p.n)
			case "RANK":
				row = append(row, p.rank)
			case "DENSE_RANK":
				row = append(row, p.dense)
			default:
				v, err := p.accs[idx].result()
				if err != nil {
					return err
				}
				row = append(row, v)
			}
		}
		o.buf.add(changelog.Insert, row)
	}
	return nil
}

// Close implements vectorized.Operator.
func (o *OverAggregate) Close() error { o.parts, o.rows = nil, nil; return nil }

// overAcc is a running aggregate over canonical values.
type overAcc struct {
	name       string
	argT, resT types.Type
	count      int64
	sumI       int64
	sumF       float64
	sumD       decimal128.Num
	best       any
}

func (a *overAcc) add(v any) error {
	if a.name == "COUNT_STAR" {
		a.count++
		return nil
	}
	if v == nil {
		return nil
	}
	a.count++
	switch a.name {
	case "SUM", "AVG":
		switch x := v.(type) {
		case int8:
			a.sumI += int64(x)
		case int16:
			a.sumI += int64(x)
		case int32:
			a.sumI += int64(x)
		case int64:
			a.sumI += x
		case float32:
			a.sumF += float64(x)
		case float64:
			a.sumF += x
		case decimal128.Num:
			a.sumD = a.sumD.Add(x)
		default:
			return fmt.Errorf("not supported yet: %s of %T in OVER", a.name, v)
		}
	case "MIN", "MAX":
		if a.best == nil {
			a.best = v
			return nil
		}
		c := function.CompareValues(v, a.best, a.argT)
		if (a.name == "MIN" && c < 0) || (a.name == "MAX" && c > 0) {
			a.best = v
		}
	}
	return nil
}

func (a *overAcc) result() (any, error) {
	switch a.name {
	case "COUNT", "COUNT_STAR":
		return a.count, nil
	case "MIN", "MAX":
		return a.best, nil
	}
	if a.count == 0 {
		return nil, nil
	}
	switch a.resT.Kind {
	case types.Decimal:
		return a.sumD, nil
	case types.Float:
		if a.name == "AVG" {
			return float32(a.sumF / float64(a.count)), nil
		}
		return float32(a.sumF), nil
	case types.Double:
		if a.name == "AVG" {
			return a.sumF / float64(a.count), nil
		}
		return a.sumF, nil
	}
	s := a.sumI
	if a.name == "AVG" {
		s /= a.count
	}
	switch a.resT.Kind {
	case types.TinyInt:
		return int8(s), nil
	case types.SmallInt:
		return int16(s), nil
	case types.Int:
		return int32(s), nil
	}
	return s, nil
}
