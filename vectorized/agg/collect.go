package agg

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// The collecting aggregates (Flink's ArrayAggFunction, JsonArrayAggFunction
// and JsonObjectAggFunction).
const (
	// FuncArrayAgg is ARRAY_AGG(expr): the values, NULLs included (RESPECT
	// NULLS), in arrival order; NULL for a group without rows.
	FuncArrayAgg = "ARRAY_AGG"
	// FuncJSONArrayAgg is JSON_ARRAYAGG(expr) with ABSENT ON NULL: a JSON
	// array of the non-NULL values in arrival order; '[]' without values.
	FuncJSONArrayAgg = "JSON_ARRAYAGG"
	// FuncJSONObjectAgg is JSON_OBJECTAGG(KEY k VALUE v) with NULL ON NULL:
	// a JSON object, keys sorted; a repeated key is an error.
	FuncJSONObjectAgg = "JSON_OBJECTAGG"
	// FuncJSONArrayAggNullOnNull is JSON_ARRAYAGG(expr NULL ON NULL): NULL
	// values are written as null.
	FuncJSONArrayAggNullOnNull = "JSON_ARRAYAGG_NULL_ON_NULL"
	// FuncJSONObjectAggAbsentOnNull is JSON_OBJECTAGG(KEY k VALUE v ABSENT
	// ON NULL): pairs with a NULL value are left out.
	FuncJSONObjectAggAbsentOnNull = "JSON_OBJECTAGG_ABSENT_ON_NULL"
)

// collectBase maps the ON NULL variants to their function and whether a
// NULL value is written (null) rather than left out.
func collectBase(name string) (base string, nullOnNull bool) {
	switch name {
	case FuncJSONArrayAggNullOnNull:
		return FuncJSONArrayAgg, true
	case FuncJSONObjectAggAbsentOnNull:
		return FuncJSONObjectAgg, false
	case FuncJSONObjectAgg:
		return name, true
	}
	return name, false
}

// collectSupported checks the argument types of a collecting aggregate
// (the result type is the definition's, see ResultType).
func collectSupported(name string, argTypes []arrow.DataType) error {
	name, _ = collectBase(name)
	want := map[string]int{FuncArrayAgg: 1, FuncJSONArrayAgg: 1, FuncJSONObjectAgg: 2}[name]
	if len(argTypes) != want {
		return fmt.Errorf("agg: %s takes %d arguments, got %d", name, want, len(argTypes))
	}
	for _, t := range argTypes {
		if _, err := types.FromArrow(t, true); err != nil {
			return fmt.Errorf("agg: %s of %s: %w", name, t, ErrNotSupported)
		}
	}
	if name == FuncJSONObjectAgg && argTypes[0].ID() != arrow.STRING {
		return fmt.Errorf("agg: %s with key %s: %w", name, argTypes[0], ErrNotSupported)
	}
	return nil
}

// collectAgg keeps every group's items: ARRAY_AGG the values themselves,
// JSON_ARRAYAGG the JSON texts of the values, JSON_OBJECTAGG the keys and
// the JSON texts of the values. It is an Accumulator and a retracting
// Stepper (a retraction removes the first equal item, or the key).
type collectAgg struct {
	spec
	name  string       // the base function (collectBase)
	nulls bool         // JSON: NULL values are written as null
	ft    []types.Type // the arguments' Flink types
	res   arrow.DataType
	items [][]any    // ARRAY_AGG: values; JSON: JSON texts (string)
	keys  [][]string // JSON_OBJECTAGG
	bytes int64
	err   error
}

func newCollectAgg(name string, argTypes []arrow.DataType) (*collectAgg, error) {
	res, err := ResultType(name, argTypes)
	if err != nil {
		return nil, err
	}
	base, nulls := collectBase(name)
	c := &collectAgg{name: base, nulls: nulls, res: res}
	for _, t := range argTypes {
		f, _ := types.FromArrow(t, true)
		c.ft = append(c.ft, f)
	}
	c.setSpec(argTypes)
	return c, nil
}

// Resize implements Accumulator and Stepper.
func (c *collectAgg) Resize(n int) {
	for len(c.items) < n {
		c.items = append(c.items, nil)
		if c.name == FuncJSONObjectAgg {
			c.keys = append(c.keys, nil)
		}
	}
}

// Clear implements Stepper.
func (c *collectAgg) Clear(g uint32) {
	c.bytes -= int64(len(c.items[g])) * 32
	c.items[g] = nil
	if c.keys != nil {
		c.keys[g] = nil
	}
}

// SizeBytes implements Accumulator and Stepper.
func (c *collectAgg) SizeBytes() int64 { return c.bytes + int64(len(c.items))*48 }

func (c *collectAgg) jsonOf(a arrow.Array, i int, t types.Type) string {
	var b bytes.Buffer
	function.AppendJSON(&b, types.GetValue(a, i, t), t)
	return b.String()
}

// add folds row i into group g; ok is false for a row that does not count
// (a NULL under ABSENT ON NULL).
func (c *collectAgg) add(g uint32, args []arrow.Array, i int) error {
	switch c.name {
	case FuncArrayAgg:
		c.items[g] = append(c.items[g], types.GetValue(args[0], i, c.ft[0]))
	case FuncJSONArrayAgg:
		if args[0].IsNull(i) && !c.nulls {
			return nil
		}
		c.items[g] = append(c.items[g], c.jsonOf(args[0], i, c.ft[0]))
	case FuncJSONObjectAgg:
		if args[0].IsNull(i) {
			return &function.EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "JSON_OBJECTAGG: the key must not be NULL"}
		}
		if args[1].IsNull(i) && !c.nulls {
			return nil
		}
		k := args[0].(*array.String).Value(i)
		if slices.Contains(c.keys[g], k) {
			return function.ErrJSONObjectAggDuplicateKey(k)
		}
		c.keys[g] = append(c.keys[g], k)
		c.items[g] = append(c.items[g], c.jsonOf(args[1], i, c.ft[1]))
		c.bytes += int64(len(k))
	}
	c.bytes += 32
	return nil
}

func (c *collectAgg) retract(g uint32, args []arrow.Array, i int) {
	remove := func(k int) {
		c.items[g] = slices.Delete(c.items[g], k, k+1)
		if c.name == FuncJSONObjectAgg {
			c.keys[g] = slices.Delete(c.keys[g], k, k+1)
		}
		c.bytes -= 32
	}
	switch c.name {
	case FuncArrayAgg:
		v := types.GetValue(args[0], i, c.ft[0])
		for k, x := range c.items[g] {
			if reflect.DeepEqual(x, v) {
				remove(k)
				return
			}
		}
	case FuncJSONArrayAgg:
		if args[0].IsNull(i) && !c.nulls {
			return
		}
		v := c.jsonOf(args[0], i, c.ft[0])
		for k, x := range c.items[g] {
			if x == v {
				remove(k)
				return
			}
		}
	case FuncJSONObjectAgg:
		if args[0].IsNull(i) {
			return
		}
		if k := slices.Index(c.keys[g], args[0].(*array.String).Value(i)); k >= 0 {
			remove(k)
		}
	}
}

// text renders a JSON aggregate's group.
func (c *collectAgg) text(g uint32) string {
	ss := make([]string, len(c.items[g]))
	for i, x := range c.items[g] {
		ss[i] = x.(string)
	}
	if c.name == FuncJSONObjectAgg {
		return function.JSONObjectAggText(c.keys[g], ss)
	}
	return function.JSONArrayAggText(ss)
}

// appendGroup appends group g's result to b.
func (c *collectAgg) appendGroup(b array.Builder, g uint32) error {
	if c.name != FuncArrayAgg {
		b.(*array.StringBuilder).Append(c.text(g))
		return nil
	}
	if len(c.items[g]) == 0 {
		b.AppendNull()
		return nil
	}
	return types.AppendValue(b, c.items[g], types.ArrayOf(c.ft[0]))
}

// participates reports whether row i takes part: the filter is TRUE.
// NULL arguments are handled by add (ARRAY_AGG keeps them).
func participates(filter *array.Boolean, i int) bool {
	return filter == nil || (filter.IsValid(i) && filter.Value(i))
}

// Update implements Accumulator.
func (c *collectAgg) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := c.check(groupIDs, args, filter); err != nil {
		return err
	}
	for i, g := range groupIDs {
		if participates(filter, i) {
			if err := c.add(g, args, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (c *collectAgg) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	b := array.NewBuilder(mem, c.res)
	defer b.Release()
	b.Reserve(len(c.items))
	for g := range c.items {
		if err := c.appendGroup(b, uint32(g)); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// Step implements Stepper. Rows the operator marks OpSkip (among them the
// rows with a NULL argument, see StepOps) leave the group unchanged.
func (c *collectAgg) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if err := checkArgs(ids, args, c.argTypes, nil); err != nil {
		return nil, err
	}
	b := array.NewBuilder(mem, c.res)
	defer b.Release()
	b.Reserve(2 * len(ids))
	for i, g := range ids {
		if err := c.appendGroup(b, g); err != nil {
			return nil, err
		}
		n := len(c.items[g])
		switch ops[i] {
		case OpAdd:
			if err := c.add(g, args, i); err != nil {
				return nil, err
			}
		case OpRetract:
			c.retract(g, args, i)
		}
		if len(c.items[g]) != n {
			changed[i] = true
		}
		if err := c.appendGroup(b, g); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

var (
	_ Accumulator = (*collectAgg)(nil)
	_ Stepper     = (*collectAgg)(nil)
)

// KeepsNullArgs reports whether the aggregate function name counts rows
// whose argument is NULL (ARRAY_AGG keeps NULL elements; JSON_OBJECTAGG
// and JSON_ARRAYAGG_NULL_ON_NULL write null values), so a streaming
// operator must not turn those rows into OpSkip as StepOps does.
func KeepsNullArgs(name string) bool {
	switch strings.ToUpper(name) {
	case FuncArrayAgg, FuncJSONArrayAggNullOnNull, FuncJSONObjectAgg:
		return true
	}
	return false
}
