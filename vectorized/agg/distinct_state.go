package agg

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Checkpoint state of the DISTINCT accumulators (distinctAcc).
//
// A DISTINCT accumulator is not a Merger itself (spilling cannot use it).
// For checkpoints and two-phase aggregation (the local phase ships the
// values, ops/group_aggregate_distinct.go), MergerOf gives a Merger view of
// it whose state is, per group, the list of its distinct argument values
// followed by the inner accumulator's state over those values. The values
// use the encoding of the group aggregate's DISTINCT stepper (distinctStep):
// for one fixed-width argument the value's bits as UINT64 (the pair set's
// normalised key), otherwise the concatenated valueEncoder encodings of the
// arguments as BINARY.
//
// Merge is a union: into a group that holds no value yet (a restore) it
// takes the values as they are and merges the inner state, so that the
// restored group evaluates exactly as the original (float sums are not
// re-added in another order); into a group that holds values it passes the
// values through Update, which forwards only those new to the group.

// MergerOf returns acc as a Merger for checkpointing and two-phase
// aggregation: acc itself when it is
// a Merger, a Merger view of a DISTINCT accumulator whose inner aggregate
// is a Merger over arguments with a value encoding, else false.
func MergerOf(acc Accumulator) (Merger, bool) {
	if m, ok := acc.(Merger); ok {
		return m, true
	}
	d, ok := acc.(*distinctAcc)
	if !ok {
		return nil, false
	}
	inner, ok := d.inner.(Merger)
	if !ok {
		return nil, false
	}
	v := &distinctMerger{distinctAcc: d, inner: inner}
	if d.pairs != nil {
		return v, true
	}
	for _, t := range d.argTypes {
		e, err := valueEncoder(t)
		if err != nil {
			return nil, false
		}
		v.enc = append(v.enc, e)
	}
	return v, true
}

// distinctMerger is the Merger view of a distinctAcc (see MergerOf).
type distinctMerger struct {
	*distinctAcc
	inner Merger
	enc   []func(a arrow.Array, i int, buf []byte) []byte
}

var _ Merger = (*distinctMerger)(nil)

// valueType is the list element type of the values.
func (d *distinctMerger) valueType() arrow.DataType {
	if d.pairs != nil {
		return arrow.PrimitiveTypes.Uint64
	}
	return arrow.BinaryTypes.Binary
}

// StateTypes implements Merger: the list of distinct values, then the
// inner accumulator's state.
func (d *distinctMerger) StateTypes() []arrow.DataType {
	return append([]arrow.DataType{arrow.ListOf(d.valueType())}, d.inner.StateTypes()...)
}

// State implements Merger.
func (d *distinctMerger) State(mem memory.Allocator) ([]arrow.Array, error) {
	inner, err := d.inner.State(mem)
	if err != nil {
		return nil, err
	}
	n := 0
	if len(inner) > 0 {
		n = inner[0].Len()
	}
	var vals arrow.Array
	var offsets []int32
	if d.pairs != nil {
		vals, offsets = d.pairState(mem, n)
	} else {
		vals, offsets, err = d.genericState(mem, n)
		if err != nil {
			releaseAll(inner)
			return nil, err
		}
	}
	defer vals.Release()
	return append([]arrow.Array{listArray(mem, vals, offsets)}, inner...), nil
}

// releaseAll releases every array of as.
func releaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// groupOffsets returns the list offsets of n groups holding cnt[g] values
// each, and the next write position of every group.
func groupOffsets(cnt []int32) (offsets, pos []int32) {
	offsets = make([]int32, len(cnt)+1)
	for g, c := range cnt {
		offsets[g+1] = offsets[g] + c
	}
	pos = append([]int32(nil), offsets[:len(cnt)]...)
	return offsets, pos
}

// pairState lists the normalised keys of the pair set by group.
func (d *distinctMerger) pairState(mem memory.Allocator, n int) (arrow.Array, []int32) {
	cnt := make([]int32, n)
	for _, s := range d.pairs.slots {
		if s.full != 0 && int(s.gid) < n {
			cnt[s.gid]++
		}
	}
	offsets, pos := groupOffsets(cnt)
	keys := make([]uint64, offsets[n])
	for _, s := range d.pairs.slots {
		if s.full != 0 && int(s.gid) < n {
			keys[pos[s.gid]] = s.key
			pos[s.gid]++
		}
	}
	return newFixedArray(mem, arrow.PrimitiveTypes.Uint64, keys, nil), offsets
}

// genericState lists the encoded argument values of the seen-table by
// group, in the order they were seen.
func (d *distinctMerger) genericState(mem memory.Allocator, n int) (arrow.Array, []int32, error) {
	cols := d.seen.Keys(mem)
	defer releaseAll(cols)
	gids := rawValues[uint32](cols[0])
	cnt := make([]int32, n)
	for _, g := range gids {
		if int(g) < n {
			cnt[g]++
		}
	}
	offsets, pos := groupOffsets(cnt)
	perm := make([]int32, offsets[n])
	for i, g := range gids {
		if int(g) < n {
			perm[pos[g]] = int32(i)
			pos[g]++
		}
	}
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	var buf []byte
	for _, r := range perm {
		buf = buf[:0]
		for k, e := range d.enc {
			if cols[k+1].IsNull(int(r)) {
				return nil, nil, fmt.Errorf("internal: NULL in the value set of a DISTINCT aggregate")
			}
			buf = e(cols[k+1], int(r), buf)
		}
		b.Append(buf)
	}
	return b.NewArray(), offsets, nil
}

// Merge implements Merger: a union of value sets (see the file comment).
func (d *distinctMerger) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, d.StateTypes()); err != nil {
		return err
	}
	n := len(groupIDs)
	if n == 0 {
		return nil
	}
	has := d.groupsWithValues(groupIDs)
	fresh := make([]bool, n)
	for i, g := range groupIDs {
		fresh[i] = !has[g]
		if lo, hi := listRange(state[0], i); hi > lo {
			has[g] = true
		}
	}
	for a := 0; a < n; {
		b := a + 1
		for b < n && fresh[b] == fresh[a] {
			b++
		}
		var err error
		if fresh[a] {
			err = d.mergeFresh(groupIDs[a:b], state, a, b)
		} else {
			err = d.mergeValues(groupIDs[a:b], state[0], a, b)
		}
		if err != nil {
			return err
		}
		a = b
	}
	return nil
}

// groupsWithValues reports, for every group of ids, whether its value set
// is not empty.
func (d *distinctMerger) groupsWithValues(ids []uint32) map[uint32]bool {
	want := make(map[uint32]bool, len(ids))
	for _, g := range ids {
		want[g] = int(g) < len(d.filled) && d.filled[g]
	}
	return want
}

// listValues returns the values of rows [a, b) of a list state array with
// the group id of their row each.
func listValues(list arrow.Array, groupIDs []uint32, a, b int) (arrow.Array, []uint32) {
	lo, _ := listRange(list, a)
	_, hi := listRange(list, b-1)
	gids := make([]uint32, 0, hi-lo)
	for i := a; i < b; i++ {
		l, h := listRange(list, i)
		for range h - l {
			gids = append(gids, groupIDs[i-a])
		}
	}
	return array.NewSlice(listChild(list), int64(lo), int64(hi)), gids
}

// mergeFresh takes rows [a, b) of state into groups without values: their
// values enter the set as they are and the inner states are merged.
func (d *distinctMerger) mergeFresh(groupIDs []uint32, state []arrow.Array, a, b int) error {
	vals, gids := listValues(state[0], groupIDs, a, b)
	defer vals.Release()
	for _, g := range gids {
		d.filled[g] = true
	}
	if len(gids) > 0 {
		rows := make([]int32, len(gids))
		for i := range rows {
			rows[i] = int32(i)
		}
		if d.pairs != nil {
			first := make([]byte, (len(gids)+7)/8)
			d.pairs.addRows(gids, rawValues[uint64](vals), rows, first)
		} else {
			args, err := d.decodeArgs(vals)
			if err != nil {
				return err
			}
			gidArr := uint32Array(gids)
			keys := append([]arrow.Array{gidArr}, args...)
			ids := make([]uint32, len(rows))
			err = d.seen.insertRows(keys, rows, ids)
			gidArr.Release()
			releaseAll(args)
			if err != nil {
				return err
			}
		}
	}
	inner := make([]arrow.Array, len(state)-1)
	for i, s := range state[1:] {
		inner[i] = array.NewSlice(s, int64(a), int64(b))
	}
	defer releaseAll(inner)
	return d.inner.Merge(groupIDs, inner)
}

// mergeValues passes the values of rows [a, b) of list through Update,
// which forwards those new to their group to the inner accumulator.
func (d *distinctMerger) mergeValues(groupIDs []uint32, list arrow.Array, a, b int) error {
	vals, gids := listValues(list, groupIDs, a, b)
	defer vals.Release()
	if len(gids) == 0 {
		return nil
	}
	var args []arrow.Array
	if d.pairs != nil {
		args = []arrow.Array{d.decodeKeys(rawValues[uint64](vals))}
	} else {
		var err error
		if args, err = d.decodeArgs(vals); err != nil {
			return err
		}
	}
	defer releaseAll(args)
	return d.distinctAcc.Update(gids, args, nil)
}

// decodeKeys turns normalised pair-set keys back into an array of the
// argument type.
func (d *distinctMerger) decodeKeys(keys []uint64) arrow.Array {
	w := d.pairs.norm.width
	data := memory.NewResizableBuffer(memory.DefaultAllocator)
	data.Resize(len(keys) * w)
	b := data.Bytes()
	var tmp [8]byte
	for i, k := range keys {
		binary.LittleEndian.PutUint64(tmp[:], k)
		copy(b[i*w:], tmp[:w])
	}
	arr := arrayData(d.argTypes[0], len(keys), []*memory.Buffer{nil, data}, 0)
	data.Release()
	return arr
}

// decodeArgs splits encoded values (valueEncoder) back into one array per
// argument.
func (d *distinctMerger) decodeArgs(vals arrow.Array) ([]arrow.Array, error) {
	bin := vals.(*array.Binary)
	n := bin.Len()
	bs := make([]array.Builder, len(d.argTypes))
	for k, t := range d.argTypes {
		if byteWidth(t) == 0 { // BOOLEAN, STRING, BYTES (valueEncoder)
			bs[k] = array.NewBuilder(memory.DefaultAllocator, t)
			bs[k].Reserve(n)
		}
	}
	defer func() {
		for _, b := range bs {
			if b != nil {
				b.Release()
			}
		}
	}()
	fixed := make([][]byte, len(d.argTypes))
	for i := range n {
		v := bin.Value(i)
		for k, t := range d.argTypes {
			var err error
			if v, err = decodeValue(t, bs[k], &fixed[k], v); err != nil {
				return nil, err
			}
		}
		if len(v) != 0 {
			return nil, fmt.Errorf("agg: restore: %d stray bytes after a DISTINCT value", len(v))
		}
	}
	out := make([]arrow.Array, len(d.argTypes))
	for k, t := range d.argTypes {
		if w := byteWidth(t); w > 0 {
			data := memory.NewBufferBytes(fixed[k])
			out[k] = arrayData(t, n, []*memory.Buffer{nil, data}, 0)
			continue
		}
		out[k] = bs[k].NewArray()
	}
	return out, nil
}

// decodeValue reads one value of type t (as valueEncoder writes it) from
// the front of v into b, or for fixed-width types into *fixed, and returns
// the rest of v.
func decodeValue(t arrow.DataType, b array.Builder, fixed *[]byte, v []byte) ([]byte, error) {
	short := func() error { return fmt.Errorf("agg: restore: truncated DISTINCT value of type %s", t) }
	switch t.ID() {
	case arrow.BOOL:
		if len(v) < 1 {
			return nil, short()
		}
		b.(*array.BooleanBuilder).Append(v[0] == 1)
		return v[1:], nil
	case arrow.STRING, arrow.BINARY:
		l, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < l {
			return nil, short()
		}
		s := v[k : k+int(l)]
		if sb, ok := b.(*array.StringBuilder); ok {
			sb.Append(string(s))
		} else {
			b.(*array.BinaryBuilder).Append(s)
		}
		return v[k+int(l):], nil
	}
	w := byteWidth(t)
	if w <= 0 || len(v) < w {
		return nil, short()
	}
	*fixed = append(*fixed, v[:w]...)
	return v[w:], nil
}
