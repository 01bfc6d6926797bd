package agg

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func stringArray(vals ...*string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(*v)
		}
	}
	return b.NewArray()
}

func sp(s string) *string { return &s }

func stringsOf(a arrow.Array) []any {
	out := make([]any, a.Len())
	for i := range out {
		if a.IsNull(i) {
			out[i] = nil
		} else {
			out[i] = a.(*array.String).Value(i)
		}
	}
	return out
}

func TestFirstLastAccumulator(t *testing.T) {
	tests := []struct {
		name string
		fn   string
		want []any
	}{
		{"first skips nulls", FuncFirstValue, []any{"a", "c", nil}},
		{"last skips nulls", FuncLastValue, []any{"d", "c", nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc, err := NewAccumulator(tt.fn, []arrow.DataType{arrow.BinaryTypes.String}, nil, false)
			require.NoError(t, err)
			acc.Resize(3)
			a := stringArray(sp("a"), sp("b"), nil, sp("c"))
			defer a.Release()
			require.NoError(t, acc.Update([]uint32{0, 0, 1, 1}, []arrow.Array{a}, nil))
			b := stringArray(sp("d"), nil)
			defer b.Release()
			require.NoError(t, acc.Update([]uint32{0, 2}, []arrow.Array{b}, nil))
			out, err := acc.Evaluate(memory.DefaultAllocator)
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, tt.want, stringsOf(out))
		})
	}
}

func TestFirstLastStepperRetract(t *testing.T) {
	tests := []struct {
		name    string
		fn      string
		ops     []Op
		vals    []string
		want    []any // before/after per row
		changed []bool
	}{
		{"first value stays on a later retraction", FuncFirstValue,
			[]Op{OpAdd, OpAdd, OpRetract, OpRetract}, []string{"a", "b", "b", "a"},
			[]any{nil, "a", "a", "a", "a", "a", "a", nil}, []bool{true, false, false, true}},
		{"last value falls back", FuncLastValue,
			[]Op{OpAdd, OpAdd, OpRetract}, []string{"a", "b", "b"},
			[]any{nil, "a", "a", "b", "b", "a"}, []bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewStepper(tt.fn, []arrow.DataType{arrow.BinaryTypes.String}, nil, false, true)
			require.NoError(t, err)
			s.Resize(1)
			ptrs := make([]*string, len(tt.vals))
			for i := range tt.vals {
				ptrs[i] = &tt.vals[i]
			}
			a := stringArray(ptrs...)
			defer a.Release()
			changed := make([]bool, len(tt.ops))
			out, err := s.Step(memory.DefaultAllocator, make([]uint32, len(tt.ops)), tt.ops, []arrow.Array{a}, changed)
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, tt.want, stringsOf(out))
			require.Equal(t, tt.changed, changed)
		})
	}
}
