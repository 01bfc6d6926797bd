package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// Checkpoint state (StepStater) of the collecting aggregates and
// PERCENTILE.

var (
	_ StepStater = (*collectAgg)(nil)
	_ StepStater = (*percentile)(nil)
)

// stateLists are the Flink types of a collectAgg's state columns: the
// items (ARRAY_AGG: the values; JSON: their texts) and, for
// JSON_OBJECTAGG, the keys.
func (c *collectAgg) stateLists() []types.Type {
	if c.name == FuncArrayAgg {
		return []types.Type{types.ArrayOf(c.ft[0])}
	}
	ts := []types.Type{types.ArrayOf(types.StringT)}
	if c.name == FuncJSONObjectAgg {
		ts = append(ts, types.ArrayOf(types.StringT))
	}
	return ts
}

// StepStateTypes implements StepStater.
func (c *collectAgg) StepStateTypes() []arrow.DataType {
	var out []arrow.DataType
	for _, t := range c.stateLists() {
		at, _ := types.ArrowType(t)
		out = append(out, at)
	}
	return out
}

// StepState implements StepStater.
func (c *collectAgg) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	lists := c.stateLists()
	out := make([]arrow.Array, 0, len(lists))
	for k, t := range lists {
		at, err := types.ArrowType(t)
		if err != nil {
			releaseArrays(out)
			return nil, err
		}
		b := array.NewBuilder(mem, at)
		for _, g := range groups {
			var v []any
			if k == 0 {
				v = append([]any{}, c.items[g]...)
			} else {
				for _, key := range c.keys[g] {
					v = append(v, key)
				}
				if v == nil {
					v = []any{}
				}
			}
			if err := types.AppendValue(b, v, t); err != nil {
				b.Release()
				releaseArrays(out)
				return nil, err
			}
		}
		out = append(out, b.NewArray())
		b.Release()
	}
	return out, nil
}

// SetStepState implements StepStater.
func (c *collectAgg) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, c.StepStateTypes()); err != nil {
		return err
	}
	lists := c.stateLists()
	for i, g := range groups {
		items, _ := types.GetValue(state[0], i, lists[0]).([]any)
		if len(items) == 0 {
			items = nil
		}
		c.items[g] = items
		c.bytes += int64(len(items)) * 32
		if c.name == FuncJSONObjectAgg {
			keys, _ := types.GetValue(state[1], i, lists[1]).([]any)
			c.keys[g] = nil
			for _, k := range keys {
				ks, _ := k.(string)
				c.keys[g] = append(c.keys[g], ks)
			}
		}
	}
	return nil
}

var (
	pctStateList   = types.ArrayOf(types.DoubleT)
	countStateList = types.ArrayOf(types.BigIntT)
)

// StepStateTypes implements StepStater: the percentages (NULL until
// known), the distinct values and their counts.
func (p *percentile) StepStateTypes() []arrow.DataType {
	f, _ := types.ArrowType(pctStateList)
	n, _ := types.ArrowType(countStateList)
	return []arrow.DataType{f, f, n}
}

// StepState implements StepStater.
func (p *percentile) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	ts := p.StepStateTypes()
	bs := make([]array.Builder, len(ts))
	for k, t := range ts {
		bs[k] = array.NewBuilder(mem, t)
		defer bs[k].Release()
	}
	for _, g := range groups {
		var pcts any
		if p.pcts != nil {
			xs := make([]any, len(p.pcts))
			for k, x := range p.pcts {
				xs[k] = x
			}
			pcts = xs
		}
		vals, counts := []any{}, []any{}
		for v, c := range p.counts[g] {
			vals = append(vals, v)
			counts = append(counts, c)
		}
		for k, v := range []any{pcts, vals, counts} {
			t := pctStateList
			if k == 2 {
				t = countStateList
			}
			if err := types.AppendValue(bs[k], v, t); err != nil {
				return nil, err
			}
		}
	}
	out := make([]arrow.Array, len(bs))
	for k, b := range bs {
		out[k] = b.NewArray()
	}
	return out, nil
}

// SetStepState implements StepStater.
func (p *percentile) SetStepState(groups []uint32, state []arrow.Array) error {
	if err := checkStepState(groups, state, p.StepStateTypes()); err != nil {
		return err
	}
	for i, g := range groups {
		if ps, ok := types.GetValue(state[0], i, pctStateList).([]any); ok && p.pcts == nil {
			p.pcts = make([]float64, len(ps))
			for k, x := range ps {
				p.pcts[k], _ = x.(float64)
			}
		}
		vals, _ := types.GetValue(state[1], i, pctStateList).([]any)
		counts, _ := types.GetValue(state[2], i, countStateList).([]any)
		p.counts[g], p.total[g] = nil, 0
		for k, v := range vals {
			if p.counts[g] == nil {
				p.counts[g] = map[float64]int64{}
			}
			c, _ := counts[k].(int64)
			p.counts[g][v.(float64)] = c
			p.total[g] += c
		}
	}
	return nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}
