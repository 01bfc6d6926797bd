package agg

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IDEvaluator is the capability of evaluating some groups only: a
// streaming aggregate that emits the changes of a bundle's groups asks
// for those, and its cost no longer grows with all the groups it holds.
type IDEvaluator interface {
	// EvaluateIDs returns the results of groups ids (each below the last
	// Resize), in that order, as Evaluate would give them.
	EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error)
}

var (
	_ IDEvaluator = (*countAcc)(nil)
	_ IDEvaluator = (*intSum[int64])(nil)
	_ IDEvaluator = (*floatSum[float64])(nil)
	_ IDEvaluator = (*intAvg[int64])(nil)
	_ IDEvaluator = (*floatAvg[float64])(nil)
	_ IDEvaluator = (*minMaxFixed[int64])(nil)
	_ IDEvaluator = (*distinctAcc)(nil)
)

// ErrNoIDEvaluator is EvaluateIDs's answer when the accumulator can only
// evaluate every group (a DISTINCT call whose inner aggregate cannot).
var ErrNoIDEvaluator = errors.New("agg: the aggregate evaluates every group only")

// EvaluateIDs implements IDEvaluator.
func (c *countAcc) EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error) {
	return newFixedArray(mem, arrow.PrimitiveTypes.Int64, pick(c.counts, ids), nil), nil
}

// EvaluateIDs implements IDEvaluator.
func (s *intSum[T]) EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error) {
	out := make([]T, len(ids))
	valid := make([]bool, len(ids))
	for i, g := range ids {
		out[i], valid[i] = T(s.sums[g]), s.has[g]
	}
	return newFixedArray(mem, s.typ, out, valid), nil
}

// EvaluateIDs implements IDEvaluator.
func (s *floatSum[T]) EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error) {
	return newFixedArray(mem, s.typ, pick(s.sums, ids), pick(s.has, ids)), nil
}

// EvaluateIDs implements IDEvaluator.
func (a *intAvg[T]) EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error) {
	out := make([]T, len(ids))
	valid := make([]bool, len(ids))
	for i, g := range ids {
		if c := a.counts[g]; c > 0 {
			out[i], valid[i] = T(a.sums[g]/c), true
		}
	}
	return newFixedArray(mem, a.typ, out, valid), nil
}

// EvaluateIDs implements IDEvaluator.
func (a *floatAvg[T]) EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error) {
	out := make([]T, len(ids))
	valid := make([]bool, len(ids))
	for i, g := range ids {
		if c := a.counts[g]; c > 0 {
			out[i], valid[i] = T(a.sums[g]/float64(c)), true
		}
	}
	return newFixedArray(mem, a.typ, out, valid), nil
}

// EvaluateIDs implements IDEvaluator.
func (a *minMaxFixed[T]) EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error) {
	return newFixedArray(mem, a.typ, pick(a.vals, ids), pick(a.has, ids)), nil
}

// EvaluateIDs implements IDEvaluator: the inner aggregate's, when it has
// it; otherwise every group is evaluated and ids picked.
func (d *distinctAcc) EvaluateIDs(mem memory.Allocator, ids []uint32) (arrow.Array, error) {
	if e, ok := d.inner.(IDEvaluator); ok {
		return e.EvaluateIDs(mem, ids)
	}
	return nil, ErrNoIDEvaluator
}
