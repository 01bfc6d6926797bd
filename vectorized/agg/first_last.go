package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Function names of FIRST_VALUE and LAST_VALUE (Flink's
// FirstValueAggFunction / LastValueAggFunction).
const (
	FuncFirstValue = "FIRST_VALUE"
	FuncLastValue  = "LAST_VALUE"
)

// firstLast is FIRST_VALUE(x) / LAST_VALUE(x): the first (last) non-NULL
// value of x in arrival order, NULL for a group without one. Each group's
// value is a copy of length 1 (so no input batch is retained). As a
// Stepper with retraction it keeps, per group, every accumulated value in
// arrival order, as Flink's *WithRetractAggFunction keeps its value list:
// a retraction removes one occurrence of the value (for FIRST_VALUE the
// latest, for LAST_VALUE the earliest, so that the other end stays put)
// and the result is the first (last) remaining value.
type firstLast struct {
	spec
	typ     arrow.DataType
	last    bool
	retract bool
	enc     func(a arrow.Array, i int, buf []byte) []byte
	vals    []*flEntry   // current value per group (nil: none)
	lists   [][]*flEntry // with retraction: all values per group, in order
	buf     []byte
}

type flEntry struct {
	key string
	val arrow.Array // length 1
}

func newFirstLast(t arrow.DataType, last, retract bool) (*firstLast, error) {
	enc, err := valueEncoder(t)
	if err != nil {
		return nil, fmt.Errorf("agg: FIRST_VALUE/LAST_VALUE over %s: %w", t, ErrNotSupported)
	}
	f := &firstLast{typ: t, last: last, retract: retract, enc: enc}
	f.setSpec([]arrow.DataType{t})
	return f, nil
}

// firstLastSupported reports an argument type FIRST_VALUE and LAST_VALUE
// handle (the result type is the argument's, see ResultType).
func firstLastSupported(t arrow.DataType) bool {
	_, err := valueEncoder(t)
	return err == nil
}

func (f *firstLast) entry(a arrow.Array, i int) (*flEntry, error) {
	f.buf = f.enc(a, i, f.buf[:0])
	s := array.NewSlice(a, int64(i), int64(i+1))
	defer s.Release()
	c, err := array.Concatenate([]arrow.Array{s}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("agg: copying a value: %w", err)
	}
	return &flEntry{key: string(f.buf), val: c}, nil
}

// Resize implements Accumulator and Stepper.
func (f *firstLast) Resize(n int) {
	for len(f.vals) < n {
		f.vals = append(f.vals, nil)
	}
	if f.retract {
		for len(f.lists) < n {
			f.lists = append(f.lists, nil)
		}
	}
}

// Update implements Accumulator.
func (f *firstLast) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := f.check(groupIDs, args, filter); err != nil {
		return err
	}
	a := args[0]
	var lastRow map[uint32]int
	if f.last {
		lastRow = map[uint32]int{}
	}
	for i, g := range groupIDs {
		if a.IsNull(i) || (filter != nil && (filter.IsNull(i) || !filter.Value(i))) {
			continue
		}
		if f.last {
			lastRow[g] = i
			continue
		}
		if f.vals[g] == nil {
			e, err := f.entry(a, i)
			if err != nil {
				return err
			}
			f.vals[g] = e
		}
	}
	for g, i := range lastRow {
		e, err := f.entry(a, i)
		if err != nil {
			return err
		}
		f.release(f.vals[g])
		f.vals[g] = e
	}
	return nil
}

func (f *firstLast) release(e *flEntry) {
	if e != nil && e.val != nil && !f.retract {
		e.val.Release()
	}
}

// Evaluate implements Accumulator.
func (f *firstLast) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return f.build(mem, f.vals)
}

func (f *firstLast) build(mem memory.Allocator, es []*flEntry) (arrow.Array, error) {
	if len(es) == 0 {
		b := array.NewBuilder(mem, f.typ)
		defer b.Release()
		return b.NewArray(), nil
	}
	null := array.MakeArrayOfNull(mem, f.typ, 1)
	defer null.Release()
	parts := make([]arrow.Array, len(es))
	for i, e := range es {
		if e == nil {
			parts[i] = null
		} else {
			parts[i] = e.val
		}
	}
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, fmt.Errorf("agg: FIRST_VALUE/LAST_VALUE result: %w", err)
	}
	return out, nil
}

// SizeBytes implements Accumulator and Stepper.
func (f *firstLast) SizeBytes() int64 {
	n := int64(len(f.vals)) * 8
	for _, e := range f.vals {
		if e != nil {
			n += int64(len(e.key)) + 64
		}
	}
	for _, l := range f.lists {
		for _, e := range l {
			n += int64(len(e.key)) + 72
		}
	}
	return n
}

// Clear implements Stepper.
func (f *firstLast) Clear(g uint32) {
	if int(g) >= len(f.vals) {
		return
	}
	if f.retract {
		for _, e := range f.lists[g] {
			e.val.Release()
		}
		f.lists[g] = nil
	} else {
		f.release(f.vals[g])
	}
	f.vals[g] = nil
}

// Step implements Stepper.
func (f *firstLast) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if len(args) != 1 || args[0].Len() < len(ids) || len(ops) < len(ids) {
		return nil, fmt.Errorf("agg: FIRST_VALUE/LAST_VALUE step: bad arguments")
	}
	a := args[0]
	results := make([]*flEntry, 0, 2*len(ids))
	for i, g := range ids {
		before := f.vals[g]
		switch ops[i] {
		case OpAdd:
			if err := f.add(g, a, i); err != nil {
				return nil, err
			}
		case OpRetract:
			if !f.retract {
				return nil, fmt.Errorf("agg: FIRST_VALUE/LAST_VALUE: retraction on an accumulator made without it")
			}
			f.buf = f.enc(a, i, f.buf[:0])
			f.remove(g, string(f.buf))
		}
		after := f.vals[g]
		if (before == nil) != (after == nil) || (before != nil && before.key != after.key) {
			changed[i] = true
		}
		results = append(results, before, after)
	}
	return f.build(mem, results)
}

func (f *firstLast) add(g uint32, a arrow.Array, i int) error {
	if !f.retract {
		if f.vals[g] != nil && !f.last {
			return nil
		}
		e, err := f.entry(a, i)
		if err != nil {
			return err
		}
		// the previous value may still be referenced by this Step's
		// results; it is dropped with them
		f.vals[g] = e
		return nil
	}
	e, err := f.entry(a, i)
	if err != nil {
		return err
	}
	f.lists[g] = append(f.lists[g], e)
	f.current(g)
	return nil
}

func (f *firstLast) remove(g uint32, key string) {
	l := f.lists[g]
	idx := -1
	if f.last {
		for j := 0; j < len(l); j++ {
			if l[j].key == key {
				idx = j
				break
			}
		}
	} else {
		for j := len(l) - 1; j >= 0; j-- {
			if l[j].key == key {
				idx = j
				break
			}
		}
	}
	if idx < 0 {
		return
	}
	f.lists[g] = append(l[:idx:idx], l[idx+1:]...)
	f.current(g)
}

func (f *firstLast) current(g uint32) {
	l := f.lists[g]
	switch {
	case len(l) == 0:
		f.vals[g] = nil
	case f.last:
		f.vals[g] = l[len(l)-1]
	default:
		f.vals[g] = l[0]
	}
}
