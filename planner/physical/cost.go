package physical

import (
	"fmt"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// planCost is a cumulative cost as Flink's ESTIMATED_COST prints it.
type planCost struct {
	rows, cpu, io float64
}

// costString prints ": rowcount = …, cumulative cost = {…}" for n with
// Flink's cost model: a table scan costs (rows, rows, rows × average row
// size) in I/O, a Calc costs its rows and rows × the number of computed
// expressions (references, literals and CASTs are free) in CPU, and every
// other node Calcite's default (rows, rows, 0). Row counts come from
// estimate.
func costString(n Node) string {
	rows, _ := estimate(n)
	c := cumulativeCost(n)
	return fmt.Sprintf(": rowcount = %s, cumulative cost = {%s rows, %s cpu, %s io, 0.0 network, 0.0 memory}",
		javaDouble(rows), javaDouble(c.rows), javaDouble(c.cpu), javaDouble(c.io))
}

func cumulativeCost(n Node) planCost {
	var c planCost
	for _, ch := range n.Children() {
		cc := cumulativeCost(ch)
		c.rows += cc.rows
		c.cpu += cc.cpu
		c.io += cc.io
	}
	rows, _ := estimate(n)
	c.rows += rows
	if x, ok := n.(Coster); ok {
		cpu, io := x.Cost(rows)
		c.cpu += cpu
		c.io += io
	} else {
		c.cpu += rows
	}
	return c
}

// computedExprs counts the distinct calls of es other than CAST (Flink
// counts the computations of a Calc's program, not its projections).
func computedExprs(es []logical.Expr) int {
	seen := map[string]bool{}
	for _, e := range es {
		logical.Walk(e, func(x logical.Expr) bool {
			if c, ok := x.(*logical.Call); ok {
				seen[c.String()] = true
			}
			return true
		})
	}
	return len(seen)
}

// averageRowSize is Flink's estimate of a row's size in bytes: fixed sizes
// for fixed-width types, 12 for character strings, 16 for binary strings
// and nested sizes for collections.
func averageRowSize(s types.Schema) float64 {
	var size float64
	for _, f := range s {
		size += averageValueSize(f.Type)
	}
	return size
}

func averageValueSize(t types.Type) float64 {
	switch t.Kind {
	case types.Boolean, types.TinyInt:
		return 1
	case types.SmallInt:
		return 2
	case types.Int, types.Float, types.Date, types.Time, types.IntervalYearMonth:
		return 4
	case types.BigInt, types.Double, types.IntervalDayTime:
		return 8
	case types.Decimal, types.Timestamp, types.TimestampLTZ, types.Char, types.VarChar:
		return 12
	case types.Binary, types.VarBinary:
		return 16
	case types.Array:
		if t.Elem != nil {
			return averageValueSize(*t.Elem) * 16
		}
	case types.Map:
		if t.Elem != nil && t.Value != nil {
			return (averageValueSize(*t.Elem) + averageValueSize(*t.Value)) * 16
		}
	case types.Row:
		var size float64
		for _, f := range t.Fields {
			size += averageValueSize(f.Type)
		}
		return size
	}
	return 128
}
