package ops

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// SetOp is INTERSECT [ALL] and EXCEPT [ALL] (Flink's HashIntersect and
// HashMinus). Whole rows are keys of an agg.GroupTable, so NULLs compare
// equal (IS NOT DISTINCT FROM). The build (right) side is counted per row;
// probe (left) rows stream through in their input order:
//
//	INTERSECT      a distinct left row that occurs on the right, once
//	INTERSECT ALL  a left row while its occurrences so far ≤ the right count
//	EXCEPT         a distinct left row that does not occur on the right, once
//	EXCEPT ALL     a left row once its occurrences so far exceed the right count
type SetOp struct {
	kind   logical.SetOpKind
	all    bool
	schema *arrow.Schema

	table agg.GroupTable
	right []int64 // per group: rows on the right
	left  []int64 // per group: left rows seen so far
	ids   []uint32
	cols  []arrow.Array
}

var _ BinaryOperator = (*SetOp)(nil)

// NewSetOp returns the set operation over inputs of schema s.
func NewSetOp(kind logical.SetOpKind, all bool, s *arrow.Schema) *SetOp {
	return &SetOp{kind: kind, all: all, schema: s}
}

// Open implements BinaryOperator.
func (s *SetOp) Open(context.Context) error {
	if s.schema.NumFields() == 0 {
		return fmt.Errorf("internal: set operation without columns")
	}
	kts := make([]arrow.DataType, s.schema.NumFields())
	for i, f := range s.schema.Fields() {
		kts[i] = f.Type
	}
	t, err := agg.NewGroupTable(kts)
	if err != nil {
		return err
	}
	s.table = t
	s.cols = make([]arrow.Array, len(kts))
	return nil
}

// insert maps the rows of b to group ids, growing the counters.
func (s *SetOp) insert(b vectorized.Batch) ([]uint32, error) {
	n := b.NumRows()
	if int(b.Rec.NumCols()) != len(s.cols) {
		return nil, fmt.Errorf("internal: set operation input of %d columns, want %d", b.Rec.NumCols(), len(s.cols))
	}
	for i := range s.cols {
		s.cols[i] = b.Rec.Column(i)
		if z := zeroCanonical(s.cols[i]); z != nil {
			defer z.Release()
			s.cols[i] = z
		}
	}
	if cap(s.ids) < n {
		s.ids = make([]uint32, n)
	}
	ids := s.ids[:n]
	if err := s.table.Insert(s.cols, n, ids); err != nil {
		return nil, err
	}
	if g := s.table.Len(); g > len(s.right) {
		s.right = append(s.right, make([]int64, g-len(s.right))...)
		s.left = append(s.left, make([]int64, g-len(s.left))...)
	}
	return ids, nil
}

// ProcessBuild implements BinaryOperator.
func (s *SetOp) ProcessBuild(_ context.Context, b vectorized.Batch) error {
	if b.NumRows() == 0 {
		return nil
	}
	ids, err := s.insert(b)
	if err != nil {
		return err
	}
	for _, g := range ids {
		s.right[g]++
	}
	return nil
}

// FinishBuild implements BinaryOperator.
func (s *SetOp) FinishBuild(context.Context) error { return nil }

// Process implements BinaryOperator.
func (s *SetOp) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	ids, err := s.insert(b)
	if err != nil {
		return err
	}
	var sel []int32
	for i, g := range ids {
		seen := s.left[g]
		s.left[g]++
		var keep bool
		switch {
		case s.kind == logical.Intersect && s.all:
			keep = seen < s.right[g]
		case s.kind == logical.Intersect:
			keep = seen == 0 && s.right[g] > 0
		case s.all:
			keep = seen >= s.right[g]
		default:
			keep = seen == 0 && s.right[g] == 0
		}
		if keep {
			sel = append(sel, int32(i))
		}
	}
	if len(sel) == 0 {
		return nil
	}
	rec := b.Rec
	if len(sel) < len(ids) {
		if rec, err = Gather(rec, sel, s.schema); err != nil {
			return err
		}
	} else if rec, err = NewRecord(s.schema, rec.Columns(), rec.NumRows()); err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec})
}

// OnMarker implements BinaryOperator.
func (s *SetOp) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return out.EmitMarker(ctx, m)
}

// Close implements BinaryOperator.
func (s *SetOp) Close() error {
	s.table = nil
	return nil
}

// zeroCanonical returns a copy of a FLOAT/DOUBLE column with every -0.0
// made 0.0, or nil when a has none (or is of another type). The group
// table keeps -0.0 apart from 0.0 (Flink's GROUP BY and DISTINCT do), but
// Flink's INTERSECT and EXCEPT match the two sides with a semi/anti join
// on SQL equality, where 0.0 = -0.0: EXCEPT of {0.0, -0.0} and {-0.0} is
// empty on Flink 2.3.
func zeroCanonical(a arrow.Array) arrow.Array {
	switch c := a.(type) {
	case *array.Float64:
		if out := positiveZeros(c.Float64Values()); out != nil {
			return array.NewFloat64Data(array.NewData(c.DataType(), c.Len(),
				[]*memory.Buffer{validityBuffer(c), memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(out))}, nil, c.NullN(), 0))
		}
	case *array.Float32:
		if out := positiveZeros(c.Float32Values()); out != nil {
			return array.NewFloat32Data(array.NewData(c.DataType(), c.Len(),
				[]*memory.Buffer{validityBuffer(c), memory.NewBufferBytes(arrow.Float32Traits.CastToBytes(out))}, nil, c.NullN(), 0))
		}
	}
	return nil
}

// positiveZeros returns a copy of vs with every -0.0 made 0.0, or nil
// when vs holds no -0.0.
func positiveZeros[T float32 | float64](vs []T) []T {
	i := slices.IndexFunc(vs, func(v T) bool { return v == 0 && math.Signbit(float64(v)) })
	if i < 0 {
		return nil
	}
	out := slices.Clone(vs)
	for j := i; j < len(out); j++ {
		if out[j] == 0 {
			out[j] = 0
		}
	}
	return out
}

// validityBuffer is a's validity bitmap rebased to offset 0, or nil
// without NULLs.
func validityBuffer(a arrow.Array) *memory.Buffer {
	if a.NullN() == 0 {
		return nil
	}
	bm := make([]byte, bitutil.BytesForBits(int64(a.Len())))
	for i := 0; i < a.Len(); i++ {
		if a.IsValid(i) {
			bitutil.SetBit(bm, i)
		}
	}
	return memory.NewBufferBytes(bm)
}
