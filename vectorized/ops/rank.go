package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// rowBuffer collects output rows and their kinds and emits them as one
// batch.
type rowBuffer struct {
	schema types.Schema
	out    *arrow.Schema
	rows   [][]any
	kinds  []changelog.RowKind
	update bool // some kind is not +I
}

func (r *rowBuffer) add(k changelog.RowKind, row []any) {
	r.rows = append(r.rows, row)
	r.kinds = append(r.kinds, k)
	if k != changelog.Insert {
		r.update = true
	}
}

func (r *rowBuffer) flush(ctx context.Context, out vectorized.Collector) error {
	for len(r.rows) > 0 {
		n := min(len(r.rows), batchSize)
		rec, err := buildRows(r.out, r.schema, r.rows[:n])
		if err != nil {
			return err
		}
		b := vectorized.Batch{Rec: rec}
		if r.update {
			b.Kinds = append([]changelog.RowKind(nil), r.kinds[:n]...)
		}
		r.rows, r.kinds = r.rows[n:], r.kinds[n:]
		if err := out.Emit(ctx, b); err != nil {
			return err
		}
	}
	r.rows, r.kinds, r.update = nil, nil, false
	return nil
}

// buildRows builds a record of schema out (types s) from canonical rows.
func buildRows(out *arrow.Schema, s types.Schema, rows [][]any) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(s))
	col := make([]any, len(rows))
	for c := range s {
		for i := range rows {
			col[i] = rows[i][c]
		}
		a, err := types.BuildArray(vectorized.Mem, s[c].Type, col)
		if err != nil {
			return nil, err
		}
		cols[c] = a
	}
	if out == nil {
		as, err := types.ArrowSchema(s)
		if err != nil {
			return nil, err
		}
		out = as
	}
	return array.NewRecordBatch(out, cols, int64(len(rows))), nil
}

// keyOf returns a map key for the values of cols of row.
func keyOf(row []any, cols []int) string {
	var b strings.Builder
	for _, c := range cols {
		fmt.Fprintf(&b, "%T:%v\x00", row[c], row[c])
	}
	return b.String()
}

// rowOrder compares rows by sort keys (NULLs placed as each key says).
type rowOrder struct {
	keys []logical.SortKey
	ts   []types.Type
}

func newRowOrder(keys []logical.SortKey, in types.Schema) rowOrder {
	ts := make([]types.Type, len(keys))
	for i, k := range keys {
		ts[i] = in[k.Index].Type
	}
	return rowOrder{keys: keys, ts: ts}
}

func (o rowOrder) compare(a, b []any) int {
	for i, k := range o.keys {
		x, y := a[k.Index], b[k.Index]
		var c int
		switch {
		case x == nil && y == nil:
			c = 0
		case x == nil || y == nil:
			c = 1
			if (x == nil) == k.NullsFirst {
				c = -1
			}
			if c != 0 {
				return c
			}
		default:
			c = function.CompareValues(x, y, o.ts[i])
			if k.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Rank keeps the top N rows per partition by ROW_NUMBER (Top-N). In
// streaming mode it is Flink's AppendFastStrategy over an insert-only
// input: a row entering the top N is emitted as +I and the row it pushes
// out as -D; with the rank number in the output, the rows whose rank
// changes are updated (-U/+U) and a new rank position is inserted. In
// batch mode it emits the final top N of every partition at EndOfInput.
type Rank struct {
	part       []int
	order      rowOrder
	n          int
	outputRank bool
	streaming  bool
	tieLast    bool
	retract    bool
	in         types.Schema
	buf        rowBuffer
	parts      map[string]*[][]any
	seen       []string
	disk       *rowsDisk // state.backend.type 'rocksdb', streaming (state_rows_disk.go)
}

var _ vectorized.Operator = (*Rank)(nil)

// NewRank returns a Rank over input schema in with output out (in, plus
// the BIGINT rank when outputRank).
// With tieLast a row ranks before the rows it ties with (keep the last
// row).
func NewRank(partition []int, order []logical.SortKey, rankEnd int64, outputRank, streaming, tieLast bool, in, outTypes types.Schema, out *arrow.Schema) *Rank {
	return &Rank{part: partition, order: newRowOrder(order, in), n: int(rankEnd), outputRank: outputRank, streaming: streaming, tieLast: tieLast,
		in: in, buf: rowBuffer{schema: outTypes, out: out}, parts: map[string]*[][]any{}}
}

// SetRetract makes a streaming Rank accept an updating input (Flink's
// RetractStrategy): it keeps every row of a partition and, for each input
// change, emits the difference between the top N before and after it:
// -D of the rows that left and +I of the rows that entered, or with the
// rank number -U/+U for every rank position whose row changed, +I for a
// new position and -D for a vanished one.
func (r *Rank) SetRetract() { r.retract = true }

// SetDiskState keeps the partitions' rows of a streaming Rank in the disk
// backend, in a store named name (the task); the partition map is then
// the cache of hot partitions. Call before Open.
func (r *Rank) SetDiskState(b *diskstate.Backend, name string) {
	if r.streaming {
		r.disk = newRowsDisk(b, name)
	}
}

// DiskEvictions returns how often the cache was emptied into the store.
func (r *Rank) DiskEvictions() int {
	if r.disk == nil {
		return 0
	}
	return r.disk.evictions
}

// Open implements vectorized.Operator.
func (r *Rank) Open(context.Context) error {
	if r.n < 1 {
		return fmt.Errorf("internal: rank end %d", r.n)
	}
	if r.disk != nil {
		return r.disk.open("Rank", r.in, r.part)
	}
	return nil
}

// partRows returns the rows kept of partition k.
func (r *Rank) partRows(k string) [][]any {
	if p, ok := r.parts[k]; ok {
		return *p
	}
	return nil
}

func (r *Rank) withRank(row []any, rank int) []any {
	if !r.outputRank {
		return row
	}
	out := make([]any, len(row)+1)
	copy(out, row)
	out[len(row)] = int64(rank)
	return out
}

// Process implements vectorized.Operator.
func (r *Rank) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	rows := types.RecordRows(b.Rec, r.in)
	ks := make([]string, len(rows))
	for i, row := range rows {
		if !r.retract && (b.Kind(i).IsRetraction() || b.Kind(i) == changelog.UpdateAfter) {
			return fmt.Errorf("not supported yet: Top-N over an updating input")
		}
		ks[i] = keyOf(row, r.part)
	}
	if r.disk != nil {
		err := r.disk.prepare(rows, ks, r.partRows, func() { r.parts, r.seen = map[string]*[][]any{}, nil },
			func(k string, rows [][]any) {
				r.parts[k] = &rows
				r.seen = append(r.seen, k)
			})
		if err != nil {
			return err
		}
	}
	for i, row := range rows {
		if r.retract {
			r.change(ks[i], row, b.Kind(i).IsRetraction())
			continue
		}
		r.insert(ks[i], row)
	}
	if !r.streaming {
		return nil
	}
	return r.buf.flush(ctx, out)
}

func (r *Rank) insert(k string, row []any) {
	p, ok := r.parts[k]
	if !ok {
		p = &[][]any{}
		r.parts[k] = p
		r.seen = append(r.seen, k)
	}
	rows := *p
	// the position after every row that sorts before or equal to it
	lo, hi := 0, len(rows)
	for lo < hi {
		m := (lo + hi) / 2
		if c := r.order.compare(rows[m], row); c < 0 || (c == 0 && !r.tieLast) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	pos := lo
	if pos >= r.n {
		return // not in the top N
	}
	rows = append(rows, nil)
	copy(rows[pos+1:], rows[pos:])
	rows[pos] = row
	if r.streaming {
		if r.outputRank {
			cur, rank := row, pos+1
			for j := pos + 1; j < len(rows) && rank <= r.n; j++ {
				prev := rows[j]
				r.buf.add(changelog.UpdateBefore, r.withRank(prev, rank))
				r.buf.add(changelog.UpdateAfter, r.withRank(cur, rank))
				cur = prev
				rank++
			}
			if rank <= r.n {
				r.buf.add(changelog.Insert, r.withRank(cur, rank))
			}
		} else {
			if len(rows) > r.n {
				r.buf.add(changelog.Delete, rows[len(rows)-1])
			}
			r.buf.add(changelog.Insert, row)
		}
	}
	if len(rows) > r.n {
		rows = rows[:r.n]
	} else if r.disk != nil {
		r.disk.grow(1)
	}
	if r.disk != nil {
		r.disk.touch(k)
	}
	*p = rows
}

// change applies one change of an updating input (retract: remove the
// row) and emits the difference of the partition's top N.
func (r *Rank) change(k string, row []any, retract bool) {
	p, ok := r.parts[k]
	if !ok {
		if retract {
			return
		}
		p = &[][]any{}
		r.parts[k] = p
		r.seen = append(r.seen, k)
	}
	rows := *p
	before := append([][]any(nil), rows[:min(len(rows), r.n)]...)
	if retract {
		id := keyOf(row, allCols(len(row)))
		at := -1
		for i, x := range rows {
			if keyOf(x, allCols(len(x))) == id {
				at = i
				break
			}
		}
		if at < 0 {
			return // not in the state (as Flink, ignore)
		}
		rows = append(rows[:at], rows[at+1:]...)
	} else {
		lo, hi := 0, len(rows)
		for lo < hi {
			m := (lo + hi) / 2
			if r.order.compare(rows[m], row) <= 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		rows = append(rows, nil)
		copy(rows[lo+1:], rows[lo:])
		rows[lo] = row
		if r.disk != nil {
			r.disk.grow(1)
		}
	}
	if r.disk != nil {
		r.disk.touch(k)
	}
	*p = rows
	after := rows[:min(len(rows), r.n)]
	same := func(a, b []any) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }
	if r.outputRank {
		for i := 0; i < max(len(before), len(after)); i++ {
			switch {
			case i < len(before) && i < len(after):
				if !same(before[i], after[i]) {
					r.buf.add(changelog.UpdateBefore, r.withRank(before[i], i+1))
					r.buf.add(changelog.UpdateAfter, r.withRank(after[i], i+1))
				}
			case i < len(after):
				r.buf.add(changelog.Insert, r.withRank(after[i], i+1))
			default:
				r.buf.add(changelog.Delete, r.withRank(before[i], i+1))
			}
		}
		return
	}
	in := func(x []any, set [][]any) bool {
		for _, y := range set {
			if same(x, y) {
				return true
			}
		}
		return false
	}
	for _, x := range before {
		if !in(x, after) {
			r.buf.add(changelog.Delete, x)
		}
	}
	for _, x := range after {
		if !in(x, before) {
			r.buf.add(changelog.Insert, x)
		}
	}
}

func allCols(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i
	}
	return c
}

// OnMarker implements vectorized.Operator.
func (r *Rank) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.EndOfInput && !r.streaming {
		for _, k := range r.seen {
			for i, row := range *r.parts[k] {
				r.buf.add(changelog.Insert, r.withRank(row, i+1))
			}
		}
		if err := r.buf.flush(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (r *Rank) Close() error { r.parts = nil; return r.disk.close() }

// Deduplicate keeps one row per key (streaming ROW_NUMBER() = 1 ordered
// by a time attribute). Keeping the first row by processing time emits
// each key's first row once (+I). Keeping the last row replaces the kept
// row by every later one (-U old, +U new); by event time only when the new
// row's time is at or after the kept one's. Keeping the first row by event
// time replaces the kept row by one with an earlier time.
type Deduplicate struct {
	keys     []int
	keepLast bool
	rowtime  bool
	timeCol  int
	in       types.Schema
	buf      rowBuffer
	state    map[string][]any
	disk     *rowsDisk // state.backend.type 'rocksdb' (state_rows_disk.go)
}

var _ vectorized.Operator = (*Deduplicate)(nil)

// NewDeduplicate returns a Deduplicate over input schema in (the output
// has the same columns).
func NewDeduplicate(keys []int, keepLast, rowtime bool, timeCol int, in types.Schema, out *arrow.Schema) *Deduplicate {
	return &Deduplicate{keys: keys, keepLast: keepLast, rowtime: rowtime, timeCol: timeCol, in: in,
		buf: rowBuffer{schema: in, out: out}, state: map[string][]any{}}
}

// SetDiskState keeps the kept rows in the disk backend, in a store named
// name (the task); the state map is then the cache of hot keys. Call
// before Open.
func (d *Deduplicate) SetDiskState(b *diskstate.Backend, name string) { d.disk = newRowsDisk(b, name) }

// DiskEvictions returns how often the cache was emptied into the store.
func (d *Deduplicate) DiskEvictions() int {
	if d.disk == nil {
		return 0
	}
	return d.disk.evictions
}

// Open implements vectorized.Operator.
func (d *Deduplicate) Open(context.Context) error {
	if d.disk != nil {
		return d.disk.open("Deduplicate", d.in, d.keys)
	}
	return nil
}

func (d *Deduplicate) kept(k string) [][]any {
	if row, ok := d.state[k]; ok {
		return [][]any{row}
	}
	return nil
}

// Process implements vectorized.Operator.
func (d *Deduplicate) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	rows := types.RecordRows(b.Rec, d.in)
	ks := make([]string, len(rows))
	for i, row := range rows {
		if b.Kind(i) != changelog.Insert {
			return fmt.Errorf("not supported yet: deduplication over an updating input")
		}
		ks[i] = keyOf(row, d.keys)
	}
	if d.disk != nil {
		err := d.disk.prepare(rows, ks, d.kept, func() { d.state = map[string][]any{} },
			func(k string, rows [][]any) { d.state[k] = rows[0] })
		if err != nil {
			return err
		}
	}
	for i, row := range rows {
		k := ks[i]
		prev, ok := d.state[k]
		if !ok {
			d.state[k] = row
			d.buf.add(changelog.Insert, row)
			if d.disk != nil {
				d.disk.touch(k)
				d.disk.grow(1)
			}
			continue
		}
		replace := false
		switch {
		case !d.rowtime:
			replace = d.keepLast
		case d.keepLast:
			replace = function.CompareValues(row[d.timeCol], prev[d.timeCol], d.in[d.timeCol].Type) >= 0
		default:
			replace = function.CompareValues(row[d.timeCol], prev[d.timeCol], d.in[d.timeCol].Type) < 0
		}
		if replace {
			d.state[k] = row
			d.buf.add(changelog.UpdateBefore, prev)
			d.buf.add(changelog.UpdateAfter, row)
			if d.disk != nil {
				d.disk.touch(k)
			}
		}
	}
	return d.buf.flush(ctx, out)
}

// OnMarker implements vectorized.Operator.
func (d *Deduplicate) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (d *Deduplicate) Close() error { d.state = nil; return d.disk.close() }
