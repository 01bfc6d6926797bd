package udf

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// Go table and aggregate functions, for programs that embed tablerun (the
// scalar form is function.FromGo). The SQL types come from the Go
// signatures with function.FromGo's type table; register the definitions
// with (*core.TableEnvironment).CreateTemporarySystemFunction.

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// goParams converts the Go parameter types ts into SQL parameters.
func goParams(name string, ts []reflect.Type) ([]types.Field, []*function.GoConverter, error) {
	fields := make([]types.Field, len(ts))
	convs := make([]*function.GoConverter, len(ts))
	for i, t := range ts {
		c, err := function.NewGoConverter(t)
		if err != nil {
			return nil, nil, fmt.Errorf("Go function '%s', parameter %d: %w", name, i+1, err)
		}
		fields[i] = types.Field{Name: fmt.Sprintf("arg%d", i), Type: c.Type()}
		convs[i] = c
	}
	return fields, convs, nil
}

// goArgs converts canonical argument values; null is true when a NULL
// reached a non-pointer parameter.
func goArgs(convs []*function.GoConverter, args []any, into []reflect.Value) (null bool, err error) {
	if len(args) != len(convs) {
		return false, fmt.Errorf("internal: %d arguments for %d parameters", len(args), len(convs))
	}
	for i, a := range args {
		if a == nil && !convs[i].Pointer() {
			return true, nil
		}
		v, err := convs[i].ToGo(a)
		if err != nil {
			return false, err
		}
		into[i] = v
	}
	return false, nil
}

// callGo calls fv, turning a panic into an error.
func callGo(name string, fv reflect.Value, in []reflect.Value) (out []reflect.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			if s, ok := p.(stopEmit); ok {
				out, err = nil, s.err
				return
			}
			out, err = nil, fmt.Errorf("Go function '%s' panicked: %v", name, p)
		}
	}()
	return fv.Call(in), nil
}

// stopEmit carries the engine's error out of a table function's emit.
type stopEmit struct{ err error }

// GoTableFunction returns the definition of a table function named name
// that calls the Go function fn, whose last parameter is the emit
// function: func(a A, b B, …, emit func(c1 C1, c2 C2, …)), optionally
// returning an error. Each call of emit produces one row; the columns are
// named columns (f0, f1, … by default) and typed by emit's parameters. As
// for FromGo, a NULL argument for a non-pointer parameter produces no rows
// without calling fn.
func GoTableFunction(name string, fn any, columns ...string) (*function.Definition, error) {
	fv := reflect.ValueOf(fn)
	if !fv.IsValid() || fv.Kind() != reflect.Func || fv.IsNil() {
		return nil, fmt.Errorf("Go table function '%s': %T is not a function", name, fn)
	}
	ft := fv.Type()
	hasErr := ft.NumOut() == 1 && ft.Out(0) == errorType
	if ft.IsVariadic() || ft.NumIn() == 0 || ft.In(ft.NumIn()-1).Kind() != reflect.Func || (ft.NumOut() != 0 && !hasErr) {
		return nil, fmt.Errorf("Go table function '%s' must be a func(args…, emit func(columns…)) returning nothing or an error", name)
	}
	et := ft.In(ft.NumIn() - 1)
	if et.NumOut() != 0 || et.NumIn() == 0 || et.IsVariadic() {
		return nil, fmt.Errorf("Go table function '%s': emit must be a func(columns…) without results", name)
	}
	ins := make([]reflect.Type, ft.NumIn()-1)
	for i := range ins {
		ins[i] = ft.In(i)
	}
	params, convs, err := goParams(name, ins)
	if err != nil {
		return nil, err
	}
	if len(columns) != 0 && len(columns) != et.NumIn() {
		return nil, fmt.Errorf("Go table function '%s': %d column names for %d columns", name, len(columns), et.NumIn())
	}
	cols := make([]types.Field, et.NumIn())
	outs := make([]*function.GoConverter, et.NumIn())
	for i := range cols {
		c, err := function.NewGoConverter(et.In(i))
		if err != nil {
			return nil, fmt.Errorf("Go table function '%s', column %d: %w", name, i+1, err)
		}
		cols[i] = types.Field{Name: fmt.Sprintf("f%d", i), Type: c.Type()}
		if len(columns) > 0 {
			cols[i].Name = columns[i]
		}
		outs[i] = c
	}
	spec := Spec{Name: name, Kind: function.Table, Params: params, Returns: types.RowOf(cols...)}
	def := &function.Definition{
		Name:  name,
		Kind:  function.Table,
		Infer: Infer(spec),
		Eval:  NotScalar(spec),
		Doc:   function.Doc{Summary: fmt.Sprintf("Go table function %s", ft), Args: spec.ParamList()},
	}
	Register(def, &goTable{name: name, fv: fv, et: et, convs: convs, outs: outs, hasErr: hasErr})
	return def, nil
}

type goTable struct {
	name   string
	fv     reflect.Value
	et     reflect.Type
	convs  []*function.GoConverter
	outs   []*function.GoConverter
	hasErr bool
}

// Rows implements TableFunc.
func (g *goTable) Rows(_ *function.EvalContext, args []any, emit func(row []any) error) error {
	in := make([]reflect.Value, len(args)+1)
	null, err := goArgs(g.convs, args, in)
	if err != nil || null {
		return err
	}
	in[len(args)] = reflect.MakeFunc(g.et, func(cols []reflect.Value) []reflect.Value {
		row := make([]any, len(cols))
		for i, c := range cols {
			v, err := g.outs[i].FromGo(c)
			if err != nil {
				panic(stopEmit{err})
			}
			row[i] = v
		}
		if err := emit(row); err != nil {
			panic(stopEmit{err})
		}
		return nil
	})
	out, err := callGo(g.name, g.fv, in)
	if err != nil {
		return err
	}
	if g.hasErr && !out[0].IsNil() {
		return fmt.Errorf("Go table function '%s': %w", g.name, out[0].Interface().(error))
	}
	return nil
}

// GoAggregate describes a Go aggregate function by its accumulator
// methods, PyFlink's AggregateFunction in Go terms. Acc below is the
// accumulator type chosen by the author, normally a pointer to a struct
// that Accumulate and Retract modify in place.
type GoAggregate struct {
	// CreateAccumulator is a func() Acc returning a new, empty accumulator.
	CreateAccumulator any
	// Accumulate is a func(acc Acc, args…) adding one row; its parameter
	// types after acc are the SQL parameter types. Unlike FromGo, rows
	// with NULL arguments are passed on (non-pointer parameters receive
	// the zero value), as Flink does for user-defined aggregates; use
	// pointer parameters to see NULLs.
	Accumulate any
	// Retract (optional) is a func(acc Acc, args…) removing one row, with
	// Accumulate's signature: needed over updating inputs.
	Retract any
	// Merge (optional) is a func(acc, other Acc) folding other into acc.
	Merge any
	// GetValue is a func(acc Acc) R; R gives the result type.
	GetValue any
}

// GoAggregateFunction returns the definition of an aggregate function
// named name over the Go accumulator methods of a.
func GoAggregateFunction(name string, a GoAggregate) (*function.Definition, error) {
	fn := func(what string, f any) (reflect.Value, reflect.Type, error) {
		v := reflect.ValueOf(f)
		if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() {
			return reflect.Value{}, nil, fmt.Errorf("Go aggregate function '%s': %s is %T, not a function", name, what, f)
		}
		if v.Type().IsVariadic() {
			return reflect.Value{}, nil, fmt.Errorf("not supported yet: variadic %s of Go aggregate function '%s'", what, name)
		}
		return v, v.Type(), nil
	}
	create, ct, err := fn("CreateAccumulator", a.CreateAccumulator)
	if err != nil {
		return nil, err
	}
	if ct.NumIn() != 0 || ct.NumOut() != 1 {
		return nil, fmt.Errorf("Go aggregate function '%s': CreateAccumulator must be a func() Acc", name)
	}
	acc := ct.Out(0)
	acm, at, err := fn("Accumulate", a.Accumulate)
	if err != nil {
		return nil, err
	}
	if at.NumIn() == 0 || at.In(0) != acc || at.NumOut() != 0 {
		return nil, fmt.Errorf("Go aggregate function '%s': Accumulate must be a func(acc %s, args…) without results", name, acc)
	}
	ins := make([]reflect.Type, at.NumIn()-1)
	for i := range ins {
		ins[i] = at.In(i + 1)
	}
	params, convs, err := goParams(name, ins)
	if err != nil {
		return nil, err
	}
	g := &goAgg{name: name, create: create, accumulate: acm, convs: convs}
	if a.Retract != nil {
		rv, rt, err := fn("Retract", a.Retract)
		if err != nil {
			return nil, err
		}
		if rt != at {
			return nil, fmt.Errorf("Go aggregate function '%s': Retract must have Accumulate's signature %s", name, at)
		}
		g.retract = rv
	}
	if a.Merge != nil {
		mv, mt, err := fn("Merge", a.Merge)
		if err != nil {
			return nil, err
		}
		if mt.NumIn() != 2 || mt.In(0) != acc || mt.In(1) != acc || mt.NumOut() != 0 {
			return nil, fmt.Errorf("Go aggregate function '%s': Merge must be a func(acc, other %s)", name, acc)
		}
		g.merge = mv
	}
	gv, gt, err := fn("GetValue", a.GetValue)
	if err != nil {
		return nil, err
	}
	if gt.NumIn() != 1 || gt.In(0) != acc || gt.NumOut() != 1 {
		return nil, fmt.Errorf("Go aggregate function '%s': GetValue must be a func(acc %s) R", name, acc)
	}
	if g.result, err = function.NewGoConverter(gt.Out(0)); err != nil {
		return nil, fmt.Errorf("Go aggregate function '%s', result: %w", name, err)
	}
	g.getValue = gv
	spec := Spec{Name: name, Kind: function.Aggregate, Params: params, Returns: g.result.Type()}
	def := &function.Definition{
		Name:  name,
		Kind:  function.Aggregate,
		Infer: Infer(spec),
		Eval:  NotScalar(spec),
		Doc:   function.Doc{Summary: fmt.Sprintf("Go aggregate function over %s", acc), Args: spec.ParamList()},
	}
	Register(def, g)
	return def, nil
}

type goAgg struct {
	name                                         string
	create, accumulate, retract, merge, getValue reflect.Value
	convs                                        []*function.GoConverter
	result                                       *function.GoConverter
}

var _ AggregateFunc = (*goAgg)(nil)

// NewInstance implements AggregateFunc: Go accumulators need no
// interpreter, so the instance is the function itself.
func (g *goAgg) NewInstance(*function.EvalContext) (AggInstance, error) { return g, nil }

// CanRetract implements AggregateFunc.
func (g *goAgg) CanRetract() bool { return g.retract.IsValid() }

// CanMerge implements AggregateFunc.
func (g *goAgg) CanMerge() bool { return g.merge.IsValid() }

// ResultType implements AggregateFunc.
func (g *goAgg) ResultType() types.Type { return g.result.Type() }

// CreateAccumulator implements AggInstance.
func (g *goAgg) CreateAccumulator() (Acc, error) {
	out, err := callGo(g.name, g.create, nil)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (g *goAgg) step(f reflect.Value, acc Acc, args []any) error {
	rv, ok := acc.(reflect.Value)
	if !ok {
		return fmt.Errorf("internal: accumulator %T of Go aggregate function '%s'", acc, g.name)
	}
	in := make([]reflect.Value, len(args)+1)
	in[0] = rv
	if len(args) != len(g.convs) {
		return fmt.Errorf("internal: %d arguments for %d parameters", len(args), len(g.convs))
	}
	for i, a := range args {
		v, err := g.convs[i].ToGo(a)
		if err != nil {
			return err
		}
		in[i+1] = v
	}
	_, err := callGo(g.name, f, in)
	return err
}

// Accumulate implements AggInstance.
func (g *goAgg) Accumulate(acc Acc, args []any) error { return g.step(g.accumulate, acc, args) }

// Retract implements AggInstance.
func (g *goAgg) Retract(acc Acc, args []any) error {
	if !g.retract.IsValid() {
		return fmt.Errorf("not supported yet: retraction in the Go aggregate function '%s' without Retract", g.name)
	}
	return g.step(g.retract, acc, args)
}

// Merge implements AggInstance.
func (g *goAgg) Merge(acc, other Acc) error {
	if !g.merge.IsValid() {
		return fmt.Errorf("not supported yet: merging in the Go aggregate function '%s' without Merge", g.name)
	}
	a, ok1 := acc.(reflect.Value)
	o, ok2 := other.(reflect.Value)
	if !ok1 || !ok2 {
		return errors.New("internal: foreign accumulator")
	}
	_, err := callGo(g.name, g.merge, []reflect.Value{a, o})
	return err
}

// GetValue implements AggInstance.
func (g *goAgg) GetValue(acc Acc) (any, error) {
	rv, ok := acc.(reflect.Value)
	if !ok {
		return nil, fmt.Errorf("internal: accumulator %T of Go aggregate function '%s'", acc, g.name)
	}
	out, err := callGo(g.name, g.getValue, []reflect.Value{rv})
	if err != nil {
		return nil, err
	}
	return g.result.FromGo(out[0])
}

// Export implements AggInstance: a Go accumulator is exported as itself
// (valid within this process only).
func (g *goAgg) Export(acc Acc) (any, error) { return acc, nil }

// ExportsInProcessOnly marks the exports as Go values that do not encode:
// a Go aggregate function does not run in two phases (udf.Register).
func (g *goAgg) ExportsInProcessOnly() {}

// Import implements AggInstance.
func (g *goAgg) Import(v any) (Acc, error) { return v, nil }

// Close implements AggInstance.
func (g *goAgg) Close() {}
