package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// singleValueStep is SINGLE_VALUE (scalar subqueries) in streaming, as
// Flink's SingleValueAggFunction: a group holds at most one row (NULL
// values count), a second one is an error, and retracting the row empties
// the group again. Values stay in the argument arrays that supplied them.
type singleValueStep struct {
	t      types.Type
	dt     arrow.DataType
	schema *arrow.Schema
	recs   []arrow.RecordBatch // one-column records of the arrays used
	cnt    []int64
	ref    []rowRef
}

var _ agg.Stepper = (*singleValueStep)(nil)

func newSingleValueStep(t types.Type, dt arrow.DataType) *singleValueStep {
	return &singleValueStep{t: t, dt: dt, schema: arrow.NewSchema([]arrow.Field{{Name: "v", Type: dt, Nullable: true}}, nil)}
}

func (s *singleValueStep) Resize(n int) {
	for len(s.cnt) < n {
		s.cnt = append(s.cnt, 0)
		s.ref = append(s.ref, noRef)
	}
}

func (s *singleValueStep) Clear(g uint32) { s.cnt[g], s.ref[g] = 0, noRef }

func (s *singleValueStep) SizeBytes() int64 { return int64(len(s.cnt))*16 + int64(len(s.recs))*64 }

func (s *singleValueStep) Step(mem memory.Allocator, ids []uint32, ops []agg.Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if len(args) != 1 || args[0].Len() < len(ids) || !arrow.TypeEqual(args[0].DataType(), s.dt) {
		return nil, fmt.Errorf("internal: SINGLE_VALUE step with %d arguments", len(args))
	}
	refs := make([]rowRef, 2*len(ids))
	batch := int32(-1)
	for i, g := range ids {
		refs[2*i] = s.ref[g]
		switch ops[i] {
		case agg.OpAdd:
			if s.cnt[g] > 0 {
				return nil, ErrSingleValue
			}
			if batch < 0 {
				batch = int32(len(s.recs))
				s.recs = append(s.recs, array.NewRecordBatch(s.schema, []arrow.Array{args[0]}, int64(args[0].Len())))
			}
			s.cnt[g]++
			s.ref[g] = rowRef{batch: batch, row: int32(i)}
			changed[i] = true
		case agg.OpRetract:
			s.cnt[g]--
			if s.cnt[g] <= 0 {
				s.ref[g] = noRef
			}
			changed[i] = true
		}
		refs[2*i+1] = s.ref[g]
	}
	return gatherRefs(s.recs, 0, s.t, s.dt, refs)
}
