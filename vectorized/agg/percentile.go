package agg

import (
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuncPercentile is PERCENTILE(value, percentage [, frequency]) (Flink's
// PercentileAggFunction): the exact percentile with linear interpolation.
const FuncPercentile = "PERCENTILE"

func numericArrow(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128:
		return true
	}
	return false
}

func integerArrow(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

// percentileSupported checks PERCENTILE's argument types: a numeric value,
// a numeric percentage or an array of them, an integer frequency (the
// result, DOUBLE or ARRAY<DOUBLE>, is the definition's, see ResultType).
func percentileSupported(argTypes []arrow.DataType) error {
	if len(argTypes) < 2 || len(argTypes) > 3 || !numericArrow(argTypes[0]) ||
		(len(argTypes) == 3 && !integerArrow(argTypes[2])) {
		return fmt.Errorf("agg: PERCENTILE(%s): %w", typeList(argTypes), ErrNotSupported)
	}
	p := argTypes[1]
	if numericArrow(p) {
		return nil
	}
	if l, ok := p.(*arrow.ListType); ok && numericArrow(l.Elem()) {
		return nil
	}
	return fmt.Errorf("agg: PERCENTILE(%s): %w", typeList(argTypes), ErrNotSupported)
}

// numAt reads a numeric array's value at i as float64.
func numAt(a arrow.Array, i int) float64 {
	switch x := a.(type) {
	case *array.Int8:
		return float64(x.Value(i))
	case *array.Int16:
		return float64(x.Value(i))
	case *array.Int32:
		return float64(x.Value(i))
	case *array.Int64:
		return float64(x.Value(i))
	case *array.Float32:
		return float64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	case *array.Decimal128:
		return decimal128ToFloat(x.Value(i), x.DataType().(*arrow.Decimal128Type).Scale)
	}
	return math.NaN()
}

func decimal128ToFloat(n decimal128.Num, scale int32) float64 { return n.ToFloat64(scale) }

// percentile keeps, per group, how often each value occurred.
type percentile struct {
	spec
	res    arrow.DataType
	list   bool
	pcts   []float64 // the percentages, read from the first row
	counts []map[float64]int64
	total  []int64
}

func newPercentile(argTypes []arrow.DataType) (*percentile, error) {
	res, err := ResultType(FuncPercentile, argTypes)
	if err != nil {
		return nil, err
	}
	p := &percentile{res: res, list: res.ID() == arrow.LIST}
	p.setSpec(argTypes)
	return p, nil
}

// Resize implements Accumulator and Stepper.
func (p *percentile) Resize(n int) {
	for len(p.counts) < n {
		p.counts = append(p.counts, nil)
		p.total = append(p.total, 0)
	}
}

// Clear implements Stepper.
func (p *percentile) Clear(g uint32) { p.counts[g], p.total[g] = nil, 0 }

// SizeBytes implements Accumulator and Stepper.
func (p *percentile) SizeBytes() int64 {
	n := int64(0)
	for _, m := range p.counts {
		n += int64(len(m)) * 24
	}
	return n + int64(len(p.counts))*24
}

// readPercentages reads the constant percentage argument at row i.
func (p *percentile) readPercentages(a arrow.Array, i int) error {
	if p.pcts != nil || a.IsNull(i) {
		return nil
	}
	var ps []float64
	if l, ok := a.(*array.List); ok {
		lo, hi := l.ValueOffsets(i)
		for k := lo; k < hi; k++ {
			ps = append(ps, numAt(l.ListValues(), int(k)))
		}
	} else {
		ps = []float64{numAt(a, i)}
	}
	for _, x := range ps {
		if !(x >= 0 && x <= 1) {
			return fmt.Errorf("Percentage of PERCENTILE should be between [0.0, 1.0], but was '%v'.", x)
		}
	}
	if ps == nil {
		ps = []float64{}
	}
	p.pcts = ps
	return nil
}

// apply adds (sign 1) or removes (sign -1) row i from group g.
func (p *percentile) apply(g uint32, args []arrow.Array, i int, sign int64) error {
	if err := p.readPercentages(args[1], i); err != nil {
		return err
	}
	if args[0].IsNull(i) {
		return nil
	}
	freq := int64(1)
	if len(args) > 2 {
		if args[2].IsNull(i) {
			return nil
		}
		freq = int64(numAt(args[2], i))
		if freq < 1 {
			return nil
		}
	}
	v := numAt(args[0], i)
	if p.counts[g] == nil {
		p.counts[g] = map[float64]int64{}
	}
	c := p.counts[g][v] + sign*freq
	if c <= 0 {
		if _, ok := p.counts[g][v]; !ok {
			return nil // retracting a value never added
		}
		p.total[g] -= p.counts[g][v]
		delete(p.counts[g], v)
		return nil
	}
	p.total[g] += c - p.counts[g][v]
	p.counts[g][v] = c
	return nil
}

// results computes group g's percentiles; ok is false without values.
func (p *percentile) results(g uint32) ([]float64, bool) {
	if p.total[g] == 0 || p.pcts == nil {
		return nil, false
	}
	keys := make([]float64, 0, len(p.counts[g]))
	for k := range p.counts[g] {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	cum := make([]int64, len(keys))
	run := int64(0)
	for i, k := range keys {
		run += p.counts[g][k]
		cum[i] = run
	}
	at := func(idx int64) float64 { // the idx-th (0-based) value in sorted order
		return keys[sort.Search(len(cum), func(i int) bool { return cum[i] > idx })]
	}
	out := make([]float64, len(p.pcts))
	n := p.total[g]
	for k, pc := range p.pcts {
		pos := pc * float64(n-1)
		lo, hi := int64(math.Floor(pos)), int64(math.Ceil(pos))
		vlo, vhi := at(lo), at(hi)
		out[k] = vlo + (pos-float64(lo))*(vhi-vlo)
	}
	return out, true
}

func (p *percentile) appendGroup(b array.Builder, g uint32) {
	rs, ok := p.results(g)
	if !ok || (p.list && len(rs) == 0) {
		b.AppendNull()
		return
	}
	if !p.list {
		b.(*array.Float64Builder).Append(rs[0])
		return
	}
	lb := b.(*array.ListBuilder)
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.Float64Builder)
	for _, r := range rs {
		vb.Append(r)
	}
}

// Update implements Accumulator.
func (p *percentile) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := p.check(groupIDs, args, filter); err != nil {
		return err
	}
	for i, g := range groupIDs {
		if participates(filter, i) {
			if err := p.apply(g, args, i, 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (p *percentile) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	b := array.NewBuilder(mem, p.res)
	defer b.Release()
	for g := range p.counts {
		p.appendGroup(b, uint32(g))
	}
	return b.NewArray(), nil
}

// Step implements Stepper.
func (p *percentile) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if err := checkArgs(ids, args, p.argTypes, nil); err != nil {
		return nil, err
	}
	b := array.NewBuilder(mem, p.res)
	defer b.Release()
	for i, g := range ids {
		p.appendGroup(b, g)
		before := p.total[g]
		switch ops[i] {
		case OpAdd:
			if err := p.apply(g, args, i, 1); err != nil {
				return nil, err
			}
		case OpRetract:
			if err := p.apply(g, args, i, -1); err != nil {
				return nil, err
			}
		}
		if p.total[g] != before {
			changed[i] = true
		}
		p.appendGroup(b, g)
	}
	return b.NewArray(), nil
}

var (
	_ Accumulator = (*percentile)(nil)
	_ Stepper     = (*percentile)(nil)
)
