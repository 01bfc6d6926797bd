package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// This file holds the Merger half of every accumulator: partial state out
// (State) and in (Merge). The state is the accumulator's own per-group
// vectors, NULL where a group has no value yet.

var (
	_ Merger = (*countAcc)(nil)
	_ Merger = (*intSum[int64])(nil)
	_ Merger = (*floatSum[float64])(nil)
	_ Merger = (*decimalSum)(nil)
	_ Merger = (*intAvg[int64])(nil)
	_ Merger = (*floatAvg[float64])(nil)
	_ Merger = (*decimalAvg)(nil)
	_ Merger = (*minMaxFixed[int64])(nil)
	_ Merger = (*minMaxDecimal)(nil)
	_ Merger = (*minMaxBool)(nil)
	_ Merger = (*minMaxVar)(nil)
)

var int64Type = arrow.PrimitiveTypes.Int64

// checkState validates the shape of a Merge call.
func checkState(groupIDs []uint32, state []arrow.Array, want []arrow.DataType) error {
	if err := checkArgs(groupIDs, state, want, nil); err != nil {
		return fmt.Errorf("agg: merge: %w", err)
	}
	return nil
}

// stateMask returns which rows of a state array hold a value (nil: all).
func stateMask(scratch *[]bool, n int, a arrow.Array) []bool {
	return rowMask(scratch, n, []arrow.Array{a}, nil)
}

// StateTypes implements Merger: the count.
func (c *countAcc) StateTypes() []arrow.DataType { return []arrow.DataType{int64Type} }

// State implements Merger.
func (c *countAcc) State(mem memory.Allocator) ([]arrow.Array, error) {
	return []arrow.Array{newFixedArray(mem, int64Type, c.counts, nil)}, nil
}

// Merge implements Merger.
func (c *countAcc) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, c.StateTypes()); err != nil {
		return err
	}
	in := rawValues[int64](state[0])[:len(groupIDs)]
	for i, g := range groupIDs {
		c.counts[g] += in[i]
	}
	return nil
}

// StateTypes implements Merger: the BIGINT running sum.
func (s *intSum[T]) StateTypes() []arrow.DataType { return []arrow.DataType{int64Type} }

// State implements Merger.
func (s *intSum[T]) State(mem memory.Allocator) ([]arrow.Array, error) {
	return []arrow.Array{newFixedArray(mem, int64Type, s.sums, s.has)}, nil
}

// Merge implements Merger.
func (s *intSum[T]) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, s.StateTypes()); err != nil {
		return err
	}
	in := rawValues[int64](state[0])[:len(groupIDs)]
	m := stateMask(&s.mask, len(groupIDs), state[0])
	for i, g := range groupIDs {
		if m == nil || m[i] {
			s.sums[g] += in[i]
			s.has[g] = true
		}
	}
	return nil
}

// StateTypes implements Merger: the running sum in the input type.
func (s *floatSum[T]) StateTypes() []arrow.DataType { return []arrow.DataType{s.typ} }

// State implements Merger.
func (s *floatSum[T]) State(mem memory.Allocator) ([]arrow.Array, error) {
	return []arrow.Array{newFixedArray(mem, s.typ, s.sums, s.has)}, nil
}

// Merge implements Merger.
func (s *floatSum[T]) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, s.StateTypes()); err != nil {
		return err
	}
	in := rawValues[T](state[0])[:len(groupIDs)]
	m := stateMask(&s.mask, len(groupIDs), state[0])
	for i, g := range groupIDs {
		if m == nil || m[i] {
			s.sums[g] += in[i]
			s.has[g] = true
		}
	}
	return nil
}

// StateTypes implements Merger: the DECIMAL(38, s) running sum.
func (s *decimalSum) StateTypes() []arrow.DataType { return []arrow.DataType{s.typ} }

// State implements Merger.
func (s *decimalSum) State(mem memory.Allocator) ([]arrow.Array, error) {
	return []arrow.Array{newFixedArray(mem, s.typ, s.sums, s.has)}, nil
}

// Merge implements Merger.
func (s *decimalSum) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, s.StateTypes()); err != nil {
		return err
	}
	in := rawValues[decimal128.Num](state[0])[:len(groupIDs)]
	m := stateMask(&s.mask, len(groupIDs), state[0])
	for i, g := range groupIDs {
		if m == nil || m[i] {
			addDecimal(&s.sums[g], &s.has[g], in[i])
		}
	}
	return nil
}

// StateTypes implements Merger: BIGINT sum and BIGINT count.
func (a *intAvg[T]) StateTypes() []arrow.DataType { return []arrow.DataType{int64Type, int64Type} }

// State implements Merger.
func (a *intAvg[T]) State(mem memory.Allocator) ([]arrow.Array, error) {
	return []arrow.Array{newFixedArray(mem, int64Type, a.sums, nil), newFixedArray(mem, int64Type, a.counts, nil)}, nil
}

// Merge implements Merger.
func (a *intAvg[T]) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, a.StateTypes()); err != nil {
		return err
	}
	sums := rawValues[int64](state[0])[:len(groupIDs)]
	counts := rawValues[int64](state[1])[:len(groupIDs)]
	for i, g := range groupIDs {
		a.sums[g] += sums[i]
		a.counts[g] += counts[i]
	}
	return nil
}

// StateTypes implements Merger: DOUBLE sum and BIGINT count.
func (a *floatAvg[T]) StateTypes() []arrow.DataType {
	return []arrow.DataType{arrow.PrimitiveTypes.Float64, int64Type}
}

// State implements Merger.
func (a *floatAvg[T]) State(mem memory.Allocator) ([]arrow.Array, error) {
	return []arrow.Array{
		newFixedArray(mem, arrow.PrimitiveTypes.Float64, a.sums, nil),
		newFixedArray(mem, int64Type, a.counts, nil),
	}, nil
}

// Merge implements Merger.
func (a *floatAvg[T]) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, a.StateTypes()); err != nil {
		return err
	}
	sums := rawValues[float64](state[0])[:len(groupIDs)]
	counts := rawValues[int64](state[1])[:len(groupIDs)]
	for i, g := range groupIDs {
		a.sums[g] += sums[i]
		a.counts[g] += counts[i]
	}
	return nil
}

// StateTypes implements Merger: DECIMAL(38, s) sum and BIGINT count.
func (a *decimalAvg) StateTypes() []arrow.DataType {
	return []arrow.DataType{&arrow.Decimal128Type{Precision: 38, Scale: a.scale}, int64Type}
}

// State implements Merger.
func (a *decimalAvg) State(mem memory.Allocator) ([]arrow.Array, error) {
	types := a.StateTypes()
	return []arrow.Array{newFixedArray(mem, types[0], a.sums, a.has), newFixedArray(mem, int64Type, a.counts, nil)}, nil
}

// Merge implements Merger.
func (a *decimalAvg) Merge(groupIDs []uint32, state []arrow.Array) error {
	if err := checkState(groupIDs, state, a.StateTypes()); err != nil {
		return err
	}
	sums := rawValues[decimal128.Num](state[0])[:len(groupIDs)]
	counts := rawValues[int64](state[1])[:len(groupIDs)]
	m := stateMask(&a.mask, len(groupIDs), state[0])
	for i, g := range groupIDs {
		if m == nil || m[i] {
			addDecimal(&a.sums[g], &a.has[g], sums[i])
		}
		a.counts[g] += counts[i]
	}
	return nil
}

// StateTypes implements Merger: the current value.
func (a *minMaxFixed[T]) StateTypes() []arrow.DataType { return []arrow.DataType{a.typ} }

// State implements Merger.
func (a *minMaxFixed[T]) State(mem memory.Allocator) ([]arrow.Array, error) {
	out, err := a.Evaluate(mem)
	return []arrow.Array{out}, err
}

// Merge implements Merger.
func (a *minMaxFixed[T]) Merge(groupIDs []uint32, state []arrow.Array) error {
	return a.Update(groupIDs, state, nil)
}

// StateTypes implements Merger: the current value.
func (a *minMaxDecimal) StateTypes() []arrow.DataType { return []arrow.DataType{a.typ} }

// State implements Merger.
func (a *minMaxDecimal) State(mem memory.Allocator) ([]arrow.Array, error) {
	out, err := a.Evaluate(mem)
	return []arrow.Array{out}, err
}

// Merge implements Merger.
func (a *minMaxDecimal) Merge(groupIDs []uint32, state []arrow.Array) error {
	return a.Update(groupIDs, state, nil)
}

// StateTypes implements Merger: the current value.
func (a *minMaxBool) StateTypes() []arrow.DataType {
	return []arrow.DataType{arrow.FixedWidthTypes.Boolean}
}

// State implements Merger.
func (a *minMaxBool) State(mem memory.Allocator) ([]arrow.Array, error) {
	out, err := a.Evaluate(mem)
	return []arrow.Array{out}, err
}

// Merge implements Merger.
func (a *minMaxBool) Merge(groupIDs []uint32, state []arrow.Array) error {
	return a.Update(groupIDs, state, nil)
}

// StateTypes implements Merger: the current value.
func (a *minMaxVar) StateTypes() []arrow.DataType { return []arrow.DataType{a.typ} }

// State implements Merger.
func (a *minMaxVar) State(mem memory.Allocator) ([]arrow.Array, error) {
	out, err := a.Evaluate(mem)
	return []arrow.Array{out}, err
}

// Merge implements Merger.
func (a *minMaxVar) Merge(groupIDs []uint32, state []arrow.Array) error {
	return a.Update(groupIDs, state, nil)
}
