package ops

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// Sort orders all its input rows by the sort keys. It materialises the
// input, sorts row indexes with one comparator per key (stable, so equal
// rows keep their input order) and emits the rows in batches at
// EndOfInput. With a fetch (see NewSortLimit) it emits only rows
// offset..offset+fetch-1 of the order.
type Sort struct {
	name   string
	keys   []logical.SortKey
	schema *arrow.Schema
	offset int64
	fetch  int64 // < 0: all
	recs   []arrow.RecordBatch
	rows   int64
	done   bool
	ext    externalSort // spill state (sort_external.go)

	// Top-N threshold (SortLimit only): once the buffer holds
	// offset+fetch rows, thrKey is the normalised first sort key of the
	// last of them; a later row whose key normalises above it cannot
	// enter the result, so Process drops it before buffering.
	thrValid bool
	thrKey   uint64
	thrInt   bool  // the first key is a 64-bit integer and thrRaw its value
	thrRaw   int64 // the threshold row's raw first-key value
	normBuf  []uint64
	candBuf  []int32
}

var _ vectorized.Operator = (*Sort)(nil)

// NewSort returns a Sort of input schema s.
func NewSort(keys []logical.SortKey, s *arrow.Schema) *Sort {
	return &Sort{name: "Sort", keys: keys, schema: s, fetch: -1}
}

// Open implements vectorized.Operator.
func (s *Sort) Open(context.Context) error {
	for _, k := range s.keys {
		if k.Index < 0 || k.Index >= s.schema.NumFields() {
			return fmt.Errorf("internal: sort key $%d out of range", k.Index)
		}
	}
	return nil
}

// Process implements vectorized.Operator.
func (s *Sort) Process(ctx context.Context, b vectorized.Batch, _ vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	if int(b.Rec.NumCols()) != s.schema.NumFields() {
		return fmt.Errorf("internal: sort input of %d columns, want %d", b.Rec.NumCols(), s.schema.NumFields())
	}
	rec := b.Rec
	if s.fetch >= 0 {
		if s.fetch == 0 {
			return nil // LIMIT 0 keeps nothing
		}
		var err error
		if rec, err = s.candidates(rec); err != nil || rec == nil {
			return err
		}
	} else {
		rec.Retain()
	}
	s.recs = append(s.recs, rec)
	s.rows += rec.NumRows()
	s.ext.bytes += recordBytes(rec)
	if k := s.offset + s.fetch; s.fetch >= 0 && s.rows > 2*k+batchSize {
		if err := s.prune(); err != nil {
			return err
		}
		s.ext.bytes = recordBytes(s.recs[0])
	}
	return s.checkBudget()
}

// candidates returns the rows of rec that may still enter the first
// offset+fetch rows, retained (rec itself when all may), or nil when none
// may. Without a threshold every row may.
func (s *Sort) candidates(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if !s.thrValid {
		rec.Retain()
		return rec, nil
	}
	first := s.keys[0]
	a := rec.Column(first.Index)
	n := a.Len()
	if s.thrInt && a.NullN() == 0 {
		return s.intCandidates(rec, rawValues[int64](a)[:n], first.Desc)
	}
	keys, ok := normalizedKeysInto(a, first.Desc, s.normBuf)
	if !ok {
		rec.Retain()
		return rec, nil
	}
	s.normBuf = keys
	thr := s.thrKey
	sel := s.candBuf[:0]
	if a.NullN() == 0 {
		// A row equal to the threshold may still win on a later key.
		for i, k := range keys[:n] {
			if k <= thr {
				sel = append(sel, int32(i))
			}
		}
	} else {
		for i, k := range keys[:n] {
			if a.IsNull(i) {
				// The threshold row is not NULL: a NULL row beats it
				// only when NULLs sort first.
				if first.NullsFirst {
					sel = append(sel, int32(i))
				}
			} else if k <= thr {
				sel = append(sel, int32(i))
			}
		}
	}
	s.candBuf = sel
	switch len(sel) {
	case 0:
		return nil, nil
	case n:
		rec.Retain()
		return rec, nil
	}
	return Gather(rec, sel, s.schema)
}

// intCandidates is candidates for a NULL-free 64-bit integer first key:
// one branch-free comparison per row against the threshold value.
func (s *Sort) intCandidates(rec arrow.RecordBatch, vs []int64, desc bool) (arrow.RecordBatch, error) {
	n := len(vs)
	if cap(s.candBuf) < n {
		s.candBuf = make([]int32, n)
	}
	sel := s.candBuf[:n]
	thr := s.thrRaw
	j := 0
	if desc {
		for i, v := range vs {
			sel[j] = int32(i)
			j += b2i(v >= thr)
		}
	} else {
		for i, v := range vs {
			sel[j] = int32(i)
			j += b2i(v <= thr)
		}
	}
	switch j {
	case 0:
		return nil, nil
	case n:
		rec.Retain()
		return rec, nil
	}
	return Gather(rec, sel[:j], s.schema)
}

// b2i is 1 for true and 0 for false (compiled without a branch).
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// prune keeps only the first offset+fetch rows of the order so far, so that
// a SortLimit holds O(offset+fetch) rows, and sets the threshold below
// which later rows must fall to enter.
func (s *Sort) prune() error {
	rec, idx, err := s.sorted()
	if err != nil {
		return err
	}
	k := s.offset + s.fetch
	keep := min(int64(len(idx)), k)
	r, err := Gather(rec, idx[:keep], s.schema)
	if err != nil {
		return err
	}
	s.recs = []arrow.RecordBatch{r}
	s.rows = keep
	if keep == k && keep > 0 {
		first := s.keys[0]
		a := r.Column(first.Index)
		last := int(keep - 1)
		if a.IsValid(last) {
			if keys, ok := normalizedKeysInto(array.NewSlice(a, int64(last), int64(last+1)), first.Desc, nil); ok {
				s.thrKey, s.thrValid = keys[0], true
			}
			switch a.DataType().ID() {
			case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
				s.thrInt, s.thrRaw = true, rawValues[int64](a)[last]
			}
		}
	}
	return nil
}

// sorted concatenates the buffered batches and returns the sorted order.
func (s *Sort) sorted() (arrow.RecordBatch, []int32, error) {
	rec, err := concatRecords(s.schema, s.recs)
	if err != nil {
		return nil, nil, err
	}
	n := int(rec.NumRows())
	cmps := make([]sortKeyCmp, len(s.keys))
	for i, k := range s.keys {
		a := rec.Column(k.Index)
		c, err := newValueCmp(a, a)
		if err != nil {
			return nil, nil, err
		}
		cmps[i] = sortKeyCmp{arr: a, cmp: c, desc: k.Desc, nullsFirst: k.NullsFirst, hasNulls: a.NullN() > 0}
	}
	if len(cmps) > 0 {
		if keys, ok := normalizedKeys(cmps[0].arr, s.keys[0].Desc); ok {
			return rec, sortNormalized(keys, cmps[0], cmps[1:], n), nil
		}
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(x, y int32) int {
		for k := range cmps {
			if c := cmps[k].compare(int(x), int(y)); c != 0 {
				return c
			}
		}
		return 0
	})
	return rec, idx, nil
}

// OnMarker implements vectorized.Operator.
func (s *Sort) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.EndOfInput && !s.done {
		s.done = true
		if err := s.emit(ctx, out); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

func (s *Sort) emit(ctx context.Context, out vectorized.Collector) error {
	if len(s.ext.runs) > 0 {
		return s.emitExternal(ctx, out)
	}
	if len(s.recs) == 0 {
		return nil
	}
	rec, idx, err := s.sorted()
	if err != nil {
		return err
	}
	s.recs = nil
	lo := min(int64(len(idx)), s.offset)
	hi := int64(len(idx))
	if s.fetch >= 0 {
		hi = min(hi, lo+s.fetch)
	}
	idx = idx[lo:hi]
	for len(idx) > 0 {
		k := min(len(idx), batchSize)
		r, err := Gather(rec, idx[:k], s.schema)
		if err != nil {
			return err
		}
		if err := out.Emit(ctx, vectorized.Batch{Rec: r}); err != nil {
			return err
		}
		idx = idx[k:]
	}
	return nil
}

// Close implements vectorized.Operator.
func (s *Sort) Close() error {
	s.recs = nil
	s.ext.runs = nil
	return s.ext.sp.cleanup()
}

// normEntry is a row with its first sort key normalised to a uint64 whose
// unsigned order is the key's order.
type normEntry struct {
	key uint64
	row int32
}

// sortNormalized sorts rows 0..n-1 by the normalised first key (NULL rows
// go first or last as a block), then by the remaining comparators, then by
// row number, which makes the unstable sort stable. Measured on 1 M BIGINT
// rows: 4× faster than the comparator sort.
func sortNormalized(keys []uint64, first sortKeyCmp, rest []sortKeyCmp, n int) []int32 {
	entries := make([]normEntry, 0, n)
	var nulls []int32
	for i := 0; i < n; i++ {
		if first.hasNulls && first.arr.IsNull(i) {
			nulls = append(nulls, int32(i))
			continue
		}
		entries = append(entries, normEntry{key: keys[i], row: int32(i)})
	}
	byRest := func(x, y int32) int {
		for k := range rest {
			if c := rest[k].compare(int(x), int(y)); c != 0 {
				return c
			}
		}
		return cmp.Compare(x, y)
	}
	slices.SortFunc(entries, func(x, y normEntry) int {
		if x.key != y.key {
			return cmp.Compare(x.key, y.key)
		}
		return byRest(x.row, y.row)
	})
	slices.SortFunc(nulls, byRest)
	idx := make([]int32, 0, n)
	if first.nullsFirst {
		idx = append(idx, nulls...)
	}
	for _, e := range entries {
		idx = append(idx, e.row)
	}
	if !first.nullsFirst {
		idx = append(idx, nulls...)
	}
	return idx
}

// normalizedKeys maps the values of a fixed-width column to uint64s whose
// unsigned order is the SQL order (descending when desc): integers and
// temporal values with the sign bit flipped, floats in Java's total order
// (-0.0 < 0.0, NaN greatest), booleans false < true. NULL rows get an
// arbitrary key. ok is false for other types.
func normalizedKeys(a arrow.Array, desc bool) ([]uint64, bool) {
	return normalizedKeysInto(a, desc, nil)
}

// normalizedKeysInto is normalizedKeys writing into buf when it is large
// enough.
func normalizedKeysInto(a arrow.Array, desc bool, buf []uint64) ([]uint64, bool) {
	n := a.Len()
	if cap(buf) < n {
		buf = make([]uint64, n)
	}
	out := buf[:n]
	const sign = uint64(1) << 63
	switch a.DataType().ID() {
	case arrow.INT8:
		for i, v := range rawValues[int8](a)[:n] {
			out[i] = uint64(int64(v)) ^ sign
		}
	case arrow.INT16:
		for i, v := range rawValues[int16](a)[:n] {
			out[i] = uint64(int64(v)) ^ sign
		}
	case arrow.INT32, arrow.DATE32, arrow.TIME32, arrow.INTERVAL_MONTHS:
		for i, v := range rawValues[int32](a)[:n] {
			out[i] = uint64(int64(v)) ^ sign
		}
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		for i, v := range rawValues[int64](a)[:n] {
			out[i] = uint64(v) ^ sign
		}
	case arrow.FLOAT32:
		for i, v := range rawValues[float32](a)[:n] {
			out[i] = floatKey(float64(v))
		}
	case arrow.FLOAT64:
		for i, v := range rawValues[float64](a)[:n] {
			out[i] = floatKey(v)
		}
	case arrow.BOOL:
		b := a.(*array.Boolean)
		for i := range out {
			out[i] = 0
			if b.Value(i) {
				out[i] = 1
			}
		}
	default:
		return nil, false
	}
	if desc {
		for i := range out {
			out[i] = ^out[i]
		}
	}
	return out, true
}

// floatKey is the order-preserving uint64 of a float in Java's order.
func floatKey(v float64) uint64 {
	if v != v {
		return math.Float64bits(math.NaN()) | 1<<63
	}
	b := math.Float64bits(v)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}
