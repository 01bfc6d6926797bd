package agg

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// StepStater is the checkpoint capability of a Stepper: it exports the
// complete per-group state of chosen groups as Arrow arrays and sets it
// back into empty groups, so that a streaming aggregate can snapshot and
// restore its state (checkpoints, rescaling) and rebuild its group table
// without the expired groups (state TTL). Unlike Merger's partial state it
// carries everything the stepper needs to go on exactly as before: the
// multisets of MIN/MAX with retraction, the value counts of DISTINCT, the
// value lists of LISTAGG, FIRST_VALUE and LAST_VALUE.
type StepStater interface {
	Stepper
	// StepStateTypes returns the types of the arrays StepState returns.
	StepStateTypes() []arrow.DataType
	// StepState returns the state of groups[i] at row i, one array per
	// StepStateTypes entry. It does not change the state; the caller owns
	// the arrays.
	StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error)
	// SetStepState sets the state of group groups[i] (empty, below the
	// last Resize) from row i of arrays as StepState returns them.
	SetStepState(groups []uint32, state []arrow.Array) error
}

var (
	_ StepStater = (*countStep)(nil)
	_ StepStater = (*sumStep[int64, int64])(nil)
	_ StepStater = (*minMaxStep[int64])(nil)
	_ StepStater = (*distinctStep)(nil)
	_ StepStater = (*listAgg)(nil)
	_ StepStater = (*firstLast)(nil)
	_ StepStater = (*statAcc)(nil)
)

// AsStepStater returns s as a StepStater, or an error wrapping
// ErrNotSupported naming what for when its state cannot be exported.
func AsStepStater(s Stepper, what string) (StepStater, error) {
	st, ok := s.(StepStater)
	if !ok {
		return nil, fmt.Errorf("%w: checkpointing the state of %s", ErrNotSupported, what)
	}
	if d, ok := s.(*distinctStep); ok {
		if _, ok := d.inner.(StepStater); !ok {
			return nil, fmt.Errorf("%w: checkpointing the state of %s", ErrNotSupported, what)
		}
	}
	return st, nil
}

// checkStepState validates the shape of a SetStepState call.
func checkStepState(groups []uint32, state []arrow.Array, want []arrow.DataType) error {
	if len(state) != len(want) {
		return fmt.Errorf("agg: restore: want %d state columns, got %d", len(want), len(state))
	}
	for i, a := range state {
		if !arrow.TypeEqual(a.DataType(), want[i]) {
			return fmt.Errorf("agg: restore: state column %d has type %s, want %s", i, a.DataType(), want[i])
		}
		if a.Len() < len(groups) {
			return fmt.Errorf("agg: restore: state column of %d rows for %d groups", a.Len(), len(groups))
		}
	}
	return nil
}

// pick returns vals[g] for every g of groups.
func pick[T any](vals []T, groups []uint32) []T {
	out := make([]T, len(groups))
	for i, g := range groups {
		out[i] = vals[g]
	}
	return out
}

// listArray wraps child into a LIST array whose row i holds
// child[offsets[i]:offsets[i+1]] (len(offsets) = rows + 1); the list takes
// its own reference to child.
func listArray(mem memory.Allocator, child arrow.Array, offsets []int32) arrow.Array {
	n := len(offsets) - 1
	off := newFixedArray(mem, arrow.PrimitiveTypes.Int32, offsets, nil)
	defer off.Release()
	d := array.NewData(arrow.ListOf(child.DataType()), n,
		[]*memory.Buffer{nil, off.Data().Buffers()[1]}, []arrow.ArrayData{child.Data()}, 0, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// listRange returns the child range of row i of a LIST array.
func listRange(a arrow.Array, i int) (int, int) {
	lo, hi := a.(*array.List).ValueOffsets(i)
	return int(lo), int(hi)
}

// listChild returns the child values of a LIST array.
func listChild(a arrow.Array) arrow.Array { return a.(*array.List).ListValues() }

// ---- COUNT ----

// StepStateTypes implements StepStater: the count.
func (c *countStep) StepStateTypes() []arrow.DataType { return []arrow.DataType{int64Type} }

// StepState implements StepStater.
func (c *countStep) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	return []arrow.Array{newFixedArray(mem, int64Type, pick(c.counts, groups), nil)}, nil
}

// SetStepState implements StepStater.
func (c *countStep) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, c.StepStateTypes()); err != nil {
		return err
	}
	in := rawValues[int64](state[0])
	for i, g := range groups {
		c.counts[g] = in[i]
	}
	return nil
}

// ---- SUM / AVG ----

// sumType is the Arrow type of the running sums.
func (s *sumStep[T, A]) sumType() arrow.DataType {
	var a A
	switch any(a).(type) {
	case int64:
		return int64Type
	case float32:
		return arrow.PrimitiveTypes.Float32
	case float64:
		return arrow.PrimitiveTypes.Float64
	case decimal128.Num:
		if d, ok := s.typ.(*arrow.Decimal128Type); ok {
			return &arrow.Decimal128Type{Precision: 38, Scale: d.Scale}
		}
	}
	return &arrow.FixedSizeBinaryType{ByteWidth: int(sizeOf(a))}
}

// StepStateTypes implements StepStater: the running sum and the count of
// non-NULL rows.
func (s *sumStep[T, A]) StepStateTypes() []arrow.DataType {
	return []arrow.DataType{s.sumType(), int64Type}
}

// StepState implements StepStater.
func (s *sumStep[T, A]) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	return []arrow.Array{
		newFixedArray(mem, s.sumType(), pick(s.sums, groups), nil),
		newFixedArray(mem, int64Type, pick(s.cnt, groups), nil),
	}, nil
}

// SetStepState implements StepStater.
func (s *sumStep[T, A]) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, s.StepStateTypes()); err != nil {
		return err
	}
	sums, cnt := rawValues[A](state[0]), rawValues[int64](state[1])
	for i, g := range groups {
		s.sums[g], s.cnt[g] = sums[i], cnt[i]
	}
	return nil
}

// ---- MIN / MAX ----

// StepStateTypes implements StepStater: the current extreme (NULL: none);
// with retraction also the multiset as a list of distinct values and a
// list of their counts.
func (s *minMaxStep[T]) StepStateTypes() []arrow.DataType {
	if !s.retract {
		return []arrow.DataType{s.typ}
	}
	return []arrow.DataType{s.typ, arrow.ListOf(s.typ), arrow.ListOf(int64Type)}
}

// StepState implements StepStater.
func (s *minMaxStep[T]) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	out := []arrow.Array{s.build(mem, s.typ, pick(s.val, groups), pick(s.has, groups))}
	if !s.retract {
		return out, nil
	}
	offsets := make([]int32, 1, len(groups)+1)
	var vals []T
	var cnts []int64
	for _, g := range groups {
		for v, c := range s.sets[g] {
			vals = append(vals, v)
			cnts = append(cnts, c)
		}
		offsets = append(offsets, int32(len(vals)))
	}
	vc := s.build(mem, s.typ, vals, nil)
	defer vc.Release()
	cc := newFixedArray(mem, int64Type, cnts, nil)
	defer cc.Release()
	return append(out, listArray(mem, vc, offsets), listArray(mem, cc, offsets)), nil
}

// SetStepState implements StepStater.
func (s *minMaxStep[T]) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, s.StepStateTypes()); err != nil {
		return err
	}
	for i, g := range groups {
		if state[0].IsValid(i) {
			s.val[g], s.has[g] = s.keep(s.read(state[0], i)), true
		}
	}
	if !s.retract {
		return nil
	}
	vals, cnts := listChild(state[1]), rawValues[int64](listChild(state[2]))
	for i, g := range groups {
		lo, hi := listRange(state[1], i)
		if lo == hi {
			continue
		}
		m := make(map[T]int64, hi-lo)
		for j := lo; j < hi; j++ {
			m[s.keep(s.read(vals, j))] = cnts[j]
		}
		s.sets[g] = m
	}
	return nil
}

// ---- DISTINCT ----

// StepStateTypes implements StepStater: the distinct values (encoded) and
// their copy counts, then the inner stepper's state.
func (d *distinctStep) StepStateTypes() []arrow.DataType {
	key := arrow.DataType(arrow.BinaryTypes.Binary)
	if d.fixed > 0 {
		key = arrow.PrimitiveTypes.Uint64
	}
	ts := []arrow.DataType{arrow.ListOf(key), arrow.ListOf(int64Type)}
	if in, ok := d.inner.(StepStater); ok {
		ts = append(ts, in.StepStateTypes()...)
	}
	return ts
}

// StepState implements StepStater.
func (d *distinctStep) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	in, ok := d.inner.(StepStater)
	if !ok {
		return nil, fmt.Errorf("%w: checkpointing a DISTINCT aggregate of this function", ErrNotSupported)
	}
	offsets := make([]int32, 1, len(groups)+1)
	var cnts []int64
	var keys arrow.Array
	if d.fixed > 0 {
		var ks []uint64
		for _, g := range groups {
			for k, c := range d.fixedCounts[g] {
				ks = append(ks, k)
				cnts = append(cnts, c)
			}
			offsets = append(offsets, int32(len(ks)))
		}
		keys = newFixedArray(mem, arrow.PrimitiveTypes.Uint64, ks, nil)
	} else {
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		for _, g := range groups {
			for k, c := range d.counts[g] {
				b.AppendString(k)
				cnts = append(cnts, c)
			}
			offsets = append(offsets, int32(len(cnts)))
		}
		keys = b.NewArray()
		b.Release()
	}
	defer keys.Release()
	cc := newFixedArray(mem, int64Type, cnts, nil)
	defer cc.Release()
	inner, err := in.StepState(mem, groups)
	if err != nil {
		return nil, err
	}
	return append([]arrow.Array{listArray(mem, keys, offsets), listArray(mem, cc, offsets)}, inner...), nil
}

// SetStepState implements StepStater.
func (d *distinctStep) SetStepState(groups []uint32, state []arrow.Array) error {
	in, ok := d.inner.(StepStater)
	if !ok {
		return fmt.Errorf("%w: checkpointing a DISTINCT aggregate of this function", ErrNotSupported)
	}
	if err := checkStepState(groups, state, d.StepStateTypes()); err != nil {
		return err
	}
	cnts := rawValues[int64](listChild(state[1]))
	keys := listChild(state[0])
	for i, g := range groups {
		lo, hi := listRange(state[0], i)
		if lo == hi {
			continue
		}
		if d.fixed > 0 {
			ks := rawValues[uint64](keys)
			m := make(map[uint64]int64, hi-lo)
			for j := lo; j < hi; j++ {
				m[ks[j]] = cnts[j]
			}
			d.fixedCounts[g] = m
		} else {
			ks := keys.(*array.Binary)
			m := make(map[string]int64, hi-lo)
			for j := lo; j < hi; j++ {
				m[string(ks.Value(j))] = cnts[j]
			}
			d.counts[g] = m
		}
	}
	return in.SetStepState(groups, state[2:])
}

// ---- LISTAGG ----

// StepStateTypes implements StepStater: the values in order, the
// separator, the cached result and whether it is stale.
func (l *listAgg) StepStateTypes() []arrow.DataType {
	return []arrow.DataType{arrow.ListOf(arrow.BinaryTypes.String), arrow.BinaryTypes.String,
		arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean}
}

// StepState implements StepStater.
func (l *listAgg) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	offsets := make([]int32, 1, len(groups)+1)
	vb := array.NewStringBuilder(mem)
	defer vb.Release()
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	jb := array.NewStringBuilder(mem)
	defer jb.Release()
	db := array.NewBooleanBuilder(mem)
	defer db.Release()
	n := 0
	for _, g := range groups {
		for _, v := range l.vals[g] {
			vb.Append(v)
		}
		n += len(l.vals[g])
		offsets = append(offsets, int32(n))
		sb.Append(l.sep[g])
		jb.Append(l.joined[g])
		db.Append(l.dirty[g])
	}
	vals := vb.NewArray()
	defer vals.Release()
	return []arrow.Array{listArray(mem, vals, offsets), sb.NewArray(), jb.NewArray(), db.NewArray()}, nil
}

// SetStepState implements StepStater.
func (l *listAgg) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, l.StepStateTypes()); err != nil {
		return err
	}
	vals := listChild(state[0]).(*array.String)
	sep, joined, dirty := state[1].(*array.String), state[2].(*array.String), state[3].(*array.Boolean)
	for i, g := range groups {
		lo, hi := listRange(state[0], i)
		vs := make([]string, 0, hi-lo)
		for j := lo; j < hi; j++ {
			v := strings.Clone(vals.Value(j))
			vs = append(vs, v)
			l.bytes += int64(len(v)) + 16
		}
		if len(vs) == 0 {
			vs = nil
		}
		l.vals[g] = vs
		l.sep[g] = strings.Clone(sep.Value(i))
		l.joined[g] = strings.Clone(joined.Value(i))
		l.bytes += int64(len(l.joined[g]))
		l.dirty[g] = dirty.Value(i)
	}
	return nil
}

// ---- FIRST_VALUE / LAST_VALUE ----

// StepStateTypes implements StepStater: the current value (NULL: none);
// with retraction the list of every accumulated value instead.
func (f *firstLast) StepStateTypes() []arrow.DataType {
	if f.retract {
		return []arrow.DataType{arrow.ListOf(f.typ)}
	}
	return []arrow.DataType{f.typ}
}

// StepState implements StepStater.
func (f *firstLast) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	if !f.retract {
		es := pick(f.vals, groups)
		out, err := f.build(mem, es)
		if err != nil {
			return nil, err
		}
		return []arrow.Array{out}, nil
	}
	offsets := make([]int32, 1, len(groups)+1)
	var es []*flEntry
	for _, g := range groups {
		es = append(es, f.lists[g]...)
		offsets = append(offsets, int32(len(es)))
	}
	child, err := f.build(mem, es)
	if err != nil {
		return nil, err
	}
	defer child.Release()
	return []arrow.Array{listArray(mem, child, offsets)}, nil
}

// SetStepState implements StepStater.
func (f *firstLast) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, f.StepStateTypes()); err != nil {
		return err
	}
	if !f.retract {
		for i, g := range groups {
			if state[0].IsNull(i) {
				continue
			}
			e, err := f.entry(state[0], i)
			if err != nil {
				return err
			}
			f.vals[g] = e
		}
		return nil
	}
	child := listChild(state[0])
	for i, g := range groups {
		lo, hi := listRange(state[0], i)
		for j := lo; j < hi; j++ {
			e, err := f.entry(child, j)
			if err != nil {
				return err
			}
			f.lists[g] = append(f.lists[g], e)
		}
		f.current(g)
	}
	return nil
}

// ---- variance family ----

// StepStateTypes implements StepStater: as StateTypes.
func (s *statAcc) StepStateTypes() []arrow.DataType { return s.StateTypes() }

// StepState implements StepStater.
func (s *statAcc) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	cnt := newFixedArray(mem, int64Type, pick(s.cnt, groups), nil)
	if s.ints {
		return []arrow.Array{cnt,
			newFixedArray(mem, int64Type, pick(s.isum, groups), nil),
			newFixedArray(mem, int64Type, pick(s.isq, groups), nil)}, nil
	}
	return []arrow.Array{cnt,
		newFixedArray(mem, arrow.PrimitiveTypes.Float64, pick(s.fsum, groups), nil),
		newFixedArray(mem, arrow.PrimitiveTypes.Float64, pick(s.fsq, groups), nil)}, nil
}

// SetStepState implements StepStater: the groups are empty, so merging is
// setting.
func (s *statAcc) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, s.StepStateTypes()); err != nil {
		return err
	}
	return s.Merge(groups, state)
}
