package agg

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// distinctStep makes a Stepper aggregate distinct values per group: it
// counts the copies of every (group, value) and passes a row on to the
// inner stepper only when its value enters the group (0 → 1 copies) or
// leaves it (1 → 0).
type distinctStep struct {
	inner  Stepper
	enc    []func(a arrow.Array, i int, buf []byte) []byte
	counts []map[string]int64 // per group: copies of each encoded value
	ops    []Op
	buf    []byte
	// fixed is set for one argument of at most 8 bytes (BIGINT, INT,
	// DATE…): values are counted in fixedCounts by their bits instead.
	fixed       int
	fixedCounts []map[uint64]int64
}

func newDistinctStep(inner Stepper, argTypes []arrow.DataType) (Stepper, error) {
	d := &distinctStep{inner: inner}
	if len(argTypes) == 1 {
		if w := byteWidth(argTypes[0]); w == 1 || w == 2 || w == 4 || w == 8 {
			d.fixed = w
		}
	}
	for _, t := range argTypes {
		e, err := valueEncoder(t)
		if err != nil {
			return nil, err
		}
		d.enc = append(d.enc, e)
	}
	return d, nil
}

// valueEncoder returns a function appending an unambiguous encoding of
// value i of an array of type t.
func valueEncoder(t arrow.DataType) (func(a arrow.Array, i int, buf []byte) []byte, error) {
	switch t.ID() {
	case arrow.BOOL:
		return func(a arrow.Array, i int, buf []byte) []byte {
			if a.(*array.Boolean).Value(i) {
				return append(buf, 1)
			}
			return append(buf, 0)
		}, nil
	case arrow.STRING, arrow.BINARY:
		return func(a arrow.Array, i int, buf []byte) []byte {
			var v []byte
			if s, ok := a.(*array.String); ok {
				v = []byte(s.Value(i))
			} else {
				v = a.(*array.Binary).Value(i)
			}
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			return append(buf, v...)
		}, nil
	}
	if w := byteWidth(t); w > 0 {
		return func(a arrow.Array, i int, buf []byte) []byte {
			d := a.Data()
			raw := d.Buffers()[1].Bytes()
			off := (d.Offset() + i) * w
			return append(buf, raw[off:off+w]...)
		}, nil
	}
	return nil, fmt.Errorf("agg: DISTINCT over %s: %w", t, ErrNotSupported)
}

func (d *distinctStep) Resize(n int) {
	if d.fixed > 0 {
		d.fixedCounts = grow(d.fixedCounts, n)
	} else {
		d.counts = grow(d.counts, n)
	}
	d.inner.Resize(n)
}

func (d *distinctStep) Clear(g uint32) {
	if d.fixed > 0 {
		d.fixedCounts[g] = nil
	} else {
		d.counts[g] = nil
	}
	d.inner.Clear(g)
}

func (d *distinctStep) SizeBytes() int64 {
	n := d.inner.SizeBytes() + int64(cap(d.ops)) + int64(cap(d.counts))*8
	for _, m := range d.counts {
		n += int64(len(m)) * 40
	}
	n += int64(cap(d.fixedCounts)) * 8
	for _, m := range d.fixedCounts {
		n += int64(len(m)) * 24
	}
	return n
}

func (d *distinctStep) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if len(args) != len(d.enc) {
		return nil, fmt.Errorf("agg: want %d arguments, got %d", len(d.enc), len(args))
	}
	if cap(d.ops) < len(ids) {
		d.ops = make([]Op, len(ids))
	}
	inner := d.ops[:len(ids)]
	if d.fixed > 0 {
		d.stepFixed(ids, ops, args[0], inner)
		return d.inner.Step(mem, ids, inner, args, changed)
	}
	for i, g := range ids {
		inner[i] = OpSkip
		if ops[i] == OpSkip {
			continue
		}
		buf := d.buf[:0]
		for k, e := range d.enc {
			buf = e(args[k], i, buf)
		}
		d.buf = buf
		m := d.counts[g]
		if m == nil {
			m = map[string]int64{}
			d.counts[g] = m
		}
		c := m[string(buf)]
		if ops[i] == OpAdd {
			if c == 0 {
				inner[i] = OpAdd
			}
			m[string(buf)] = c + 1
			continue
		}
		switch {
		case c == 1:
			inner[i] = OpRetract
			delete(m, string(buf))
		case c > 1:
			m[string(buf)] = c - 1
		}
	}
	return d.inner.Step(mem, ids, inner, args, changed)
}

// stepFixed computes the inner operations for one fixed-width argument.
func (d *distinctStep) stepFixed(ids []uint32, ops []Op, a arrow.Array, inner []Op) {
	var bits func(i int) uint64
	switch d.fixed {
	case 1:
		v := rawValues[uint8](a)
		bits = func(i int) uint64 { return uint64(v[i]) }
	case 2:
		v := rawValues[uint16](a)
		bits = func(i int) uint64 { return uint64(v[i]) }
	case 4:
		v := rawValues[uint32](a)
		bits = func(i int) uint64 { return uint64(v[i]) }
	default:
		v := rawValues[uint64](a)
		bits = func(i int) uint64 { return v[i] }
	}
	for i, g := range ids {
		inner[i] = OpSkip
		if ops[i] == OpSkip {
			continue
		}
		m := d.fixedCounts[g]
		if m == nil {
			m = map[uint64]int64{}
			d.fixedCounts[g] = m
		}
		k := bits(i)
		c := m[k]
		if ops[i] == OpAdd {
			if c == 0 {
				inner[i] = OpAdd
			}
			m[k] = c + 1
			continue
		}
		switch {
		case c == 1:
			inner[i] = OpRetract
			delete(m, k)
		case c > 1:
			m[k] = c - 1
		}
	}
}
