package agg

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// minMaxStep is MIN and MAX in streaming. Without retraction it keeps the
// current extreme per group; with retraction (Flink's MIN_RETRACT /
// MAX_RETRACT) it also keeps a per-group multiset of the values, and when
// the last copy of the extreme is retracted it finds the next one in the
// multiset.
type minMaxStep[T comparable] struct {
	typ     arrow.DataType
	isMax   bool
	retract bool
	less    func(a, b T) bool
	read    func(a arrow.Array, i int) T
	keep    func(v T) T // copies a value read from a batch before it is stored
	build   func(mem memory.Allocator, typ arrow.DataType, vals []T, valid []bool) arrow.Array

	val  []T
	has  []bool
	sets []map[T]int64

	out   []T
	valid []bool
}

func newMinMaxStep(t arrow.DataType, isMax, retract bool) (Stepper, error) {
	switch t.ID() {
	case arrow.INT8:
		return fixedMinMax[int8](t, isMax, retract), nil
	case arrow.INT16:
		return fixedMinMax[int16](t, isMax, retract), nil
	case arrow.INT32, arrow.DATE32, arrow.TIME32, arrow.INTERVAL_MONTHS:
		return fixedMinMax[int32](t, isMax, retract), nil
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return fixedMinMax[int64](t, isMax, retract), nil
	case arrow.UINT8:
		return fixedMinMax[uint8](t, isMax, retract), nil
	case arrow.UINT16:
		return fixedMinMax[uint16](t, isMax, retract), nil
	case arrow.UINT32:
		return fixedMinMax[uint32](t, isMax, retract), nil
	case arrow.UINT64:
		return fixedMinMax[uint64](t, isMax, retract), nil
	case arrow.FLOAT32:
		return fixedMinMax[float32](t, isMax, retract), nil
	case arrow.FLOAT64:
		return fixedMinMax[float64](t, isMax, retract), nil
	case arrow.DECIMAL128:
		return &minMaxStep[decimal128.Num]{
			typ: t, isMax: isMax, retract: retract,
			less:  func(a, b decimal128.Num) bool { return a.Less(b) },
			read:  readFixed[decimal128.Num],
			keep:  func(v decimal128.Num) decimal128.Num { return v },
			build: newFixedArray[decimal128.Num],
		}, nil
	case arrow.BOOL:
		return &minMaxStep[bool]{
			typ: t, isMax: isMax, retract: retract,
			less:  func(a, b bool) bool { return !a && b },
			read:  func(a arrow.Array, i int) bool { return a.(*array.Boolean).Value(i) },
			keep:  func(v bool) bool { return v },
			build: buildBools,
		}, nil
	case arrow.STRING, arrow.BINARY:
		return &minMaxStep[string]{
			typ: t, isMax: isMax, retract: retract,
			less: func(a, b string) bool { return a < b },
			read: func(a arrow.Array, i int) string {
				if s, ok := a.(*array.String); ok {
					return s.Value(i)
				}
				return a.(*array.Binary).ValueString(i)
			},
			keep:  strings.Clone,
			build: buildStrings,
		}, nil
	}
	return nil, fmt.Errorf("agg: streaming MIN/MAX of %s: %w", t, ErrNotSupported)
}

func fixedMinMax[T cmp.Ordered](t arrow.DataType, isMax, retract bool) Stepper {
	return &minMaxStep[T]{
		typ: t, isMax: isMax, retract: retract,
		less:  cmp.Less[T],
		read:  readFixed[T],
		keep:  func(v T) T { return v },
		build: newFixedArray[T],
	}
}

func readFixed[T any](a arrow.Array, i int) T { return rawValues[T](a)[i] }

func buildBools(mem memory.Allocator, typ arrow.DataType, vals []bool, valid []bool) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func buildStrings(mem memory.Allocator, typ arrow.DataType, vals []string, valid []bool) arrow.Array {
	if typ.ID() == arrow.STRING {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(vals, valid)
		return b.NewArray()
	}
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	b.AppendStringValues(vals, valid)
	return b.NewArray()
}

func (s *minMaxStep[T]) Resize(n int) {
	s.val = grow(s.val, n)
	s.has = grow(s.has, n)
	if s.retract {
		s.sets = grow(s.sets, n)
	}
}

func (s *minMaxStep[T]) Clear(g uint32) {
	var zero T
	s.val[g], s.has[g] = zero, false
	if s.retract {
		s.sets[g] = nil
	}
}

func (s *minMaxStep[T]) SizeBytes() int64 {
	var t T
	w := int64(sizeOf(t))
	n := int64(cap(s.val))*w + int64(cap(s.has)) + int64(cap(s.out))*w + int64(cap(s.valid))
	for _, m := range s.sets {
		n += int64(len(m)) * (w + 16)
	}
	return n
}

// better reports whether a beats b as the extreme.
func (s *minMaxStep[T]) better(a, b T) bool {
	if s.isMax {
		return s.less(b, a)
	}
	return s.less(a, b)
}

func (s *minMaxStep[T]) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("agg: MIN/MAX takes one argument, got %d", len(args))
	}
	a := args[0]
	if a.Len() < len(ids) {
		return nil, fmt.Errorf("agg: argument of %d rows for %d group ids", a.Len(), len(ids))
	}
	out := grow(s.out[:0], 2*len(ids))
	valid := grow(s.valid[:0], 2*len(ids))
	s.out, s.valid = out, valid
	for i, g := range ids {
		before, bok := s.val[g], s.has[g]
		out[2*i], valid[2*i] = before, bok
		switch ops[i] {
		case OpAdd:
			v := s.read(a, i)
			if s.retract {
				m := s.sets[g]
				if m == nil {
					m = map[T]int64{}
					s.sets[g] = m
				}
				if _, ok := m[v]; !ok {
					v = s.keep(v)
				}
				m[v]++
			}
			if !s.has[g] || s.better(v, s.val[g]) {
				s.val[g], s.has[g] = s.keep(v), true
			}
		case OpRetract:
			if !s.retract {
				return nil, fmt.Errorf("agg: MIN/MAX without retraction received a retraction")
			}
			v := s.read(a, i)
			m := s.sets[g]
			if c, ok := m[v]; ok {
				if c > 1 {
					m[v] = c - 1
				} else {
					delete(m, v)
					if s.has[g] && s.val[g] == v {
						s.recompute(g)
					}
				}
			}
		}
		after, aok := s.val[g], s.has[g]
		out[2*i+1], valid[2*i+1] = after, aok
		if aok != bok || aok && after != before {
			changed[i] = true
		}
	}
	return s.build(mem, s.typ, out, valid), nil
}

// recompute finds group g's extreme in its multiset.
func (s *minMaxStep[T]) recompute(g uint32) {
	var best T
	found := false
	for v := range s.sets[g] {
		if !found || s.better(v, best) {
			best, found = v, true
		}
	}
	s.val[g], s.has[g] = best, found
}
