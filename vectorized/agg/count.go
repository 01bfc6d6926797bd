package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// countAcc is COUNT(*) (star) and COUNT(x, …): the number of rows per
// group where every argument is non-NULL. Result BIGINT, never NULL.
type countAcc struct {
	spec
	star   bool
	counts []int64
	mask   []bool
}

var _ Accumulator = (*countAcc)(nil)

// Resize implements Accumulator.
func (c *countAcc) Resize(n int) { c.counts = grow(c.counts, n) }

// Update implements Accumulator.
func (c *countAcc) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if c.star {
		args = nil
	}
	if err := c.check(groupIDs, args, filter); err != nil {
		return err
	}
	counts := c.counts
	m := rowMask(&c.mask, len(groupIDs), args, filter)
	if m == nil {
		for _, g := range groupIDs {
			counts[g]++
		}
		return nil
	}
	m = m[:len(groupIDs)]
	for i, g := range groupIDs {
		if m[i] {
			counts[g]++
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (c *countAcc) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return newFixedArray(mem, arrow.PrimitiveTypes.Int64, c.counts, nil), nil
}

// SizeBytes implements Accumulator.
func (c *countAcc) SizeBytes() int64 { return int64(cap(c.counts))*8 + int64(cap(c.mask)) }
