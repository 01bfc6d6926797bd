package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
)

// withWatermark puts a WatermarkAssigner over the scan of a table that
// declares WATERMARK FOR, in streaming mode (in batch mode Flink ignores
// watermarks). The watermark expression is bound over the table's columns
// (physical and computed), i.e. the output of n.
func (v *Validator) withWatermark(n logical.Node, err error, rt *catalog.ResolvedTable) (logical.Node, error) {
	if err != nil || !v.opts.Streaming || rt == nil || rt.Table == nil || rt.Table.Watermark == nil {
		return n, err
	}
	wm := rt.Table.Watermark
	s := n.Schema()
	rowtime := -1
	for i, f := range s {
		if f.Name == wm.Column {
			rowtime = i
		}
	}
	if rowtime < 0 {
		return nil, fmt.Errorf("watermark of %s: unknown rowtime column '%s'", rt.ID.Summary(), wm.Column)
	}
	ae, err := parser.ParseExpression(wm.Expr)
	if err != nil {
		return nil, fmt.Errorf("watermark of %s: %w", rt.ID.Summary(), err)
	}
	b := &binder{v: v, sc: newScope(schemaEntries(s, rt.ID.Object)), env: &env{}, clause: "watermark"}
	x, err := b.expr(ae)
	if err != nil {
		return nil, fmt.Errorf("watermark of %s: %w", rt.ID.Summary(), err)
	}
	if k := x.Type().Kind; k != types.Timestamp && k != types.TimestampLTZ {
		return nil, fmt.Errorf("Watermark strategy %s must be of type TIMESTAMP or TIMESTAMP_LTZ but is of type '%s'.", wm.Expr, x.Type())
	}
	return &logical.WatermarkAssigner{Input: n, Rowtime: rowtime, Expr: x}, nil
}

// windowKinds maps the windowing table functions to their kinds.
var windowKinds = map[string]logical.WindowKind{"TUMBLE": logical.Tumble, "HOP": logical.Hop, "CUMULATE": logical.Cumulate, "SESSION": logical.Session}

// planWindowTVF plans TABLE(TUMBLE|HOP|CUMULATE(TABLE t, DESCRIPTOR(ts),
// intervals…)) in FROM. handled is false when the call is not a
// windowing function.
func (v *Validator) planWindowTVF(x *ast.TableFunctionRef, e *env) (logical.Node, *scope, bool, error) {
	if x.Call == nil || x.Lateral || len(x.Call.Name.Parts) != 1 {
		return nil, nil, false, nil
	}
	name := strings.ToUpper(x.Call.Name.Parts[0])
	kind, ok := windowKinds[name]
	if !ok {
		return nil, nil, false, nil
	}
	args, err := windowArgs(name, x.Call)
	if err != nil {
		return nil, nil, true, err
	}
	nInt := 1
	if kind != logical.Tumble && kind != logical.Session {
		nInt = 2
	}
	if len(args) != 2+nInt && len(args) != 3+nInt {
		return nil, nil, true, posErr(x.Call.Pos, "Invalid number of arguments to function '%s'. Was expecting %d arguments", name, 2+nInt)
	}
	ta, ok := args[0].(*ast.TableArg)
	if !ok {
		return nil, nil, true, posErr(x.Call.Pos, "The first argument of %s must be a table: TABLE name", name)
	}
	if (len(ta.PartitionBy) > 0 && kind != logical.Session) || len(ta.OrderBy) > 0 {
		return nil, nil, true, unsupported("PARTITION BY / ORDER BY in the table argument of %s", name)
	}
	in, _, err := v.planFrom(&ast.TableName{Pos: ta.Pos, Name: ta.Name}, e)
	if err != nil {
		return nil, nil, true, err
	}
	var pkeys []int
	var pnames []string
	for _, p := range ta.PartitionBy {
		id, ok := p.(*ast.Identifier)
		if !ok || len(id.Parts) == 0 {
			return nil, nil, true, unsupported("PARTITION BY expressions other than columns in %s", name)
		}
		col := id.Parts[len(id.Parts)-1]
		idx := -1
		for i, f := range in.Schema() {
			if f.Name == col {
				idx = i
			}
		}
		if idx < 0 {
			return nil, nil, true, posErr(id.Pos, "Column '%s' not found in any table", col)
		}
		pkeys, pnames = append(pkeys, idx), append(pnames, col)
	}
	desc, ok := args[1].(*ast.Descriptor)
	if !ok || len(desc.Columns) != 1 {
		return nil, nil, true, posErr(x.Call.Pos, "The second argument of %s must be DESCRIPTOR(time column)", name)
	}
	s := in.Schema()
	timeCol := -1
	for i, f := range s {
		if f.Name == desc.Columns[0] {
			timeCol = i
		}
	}
	if timeCol < 0 {
		return nil, nil, true, posErr(desc.Pos, "Unknown identifier '%s'", desc.Columns[0])
	}
	tt := s[timeCol].Type
	if tt.Kind != types.Timestamp && tt.Kind != types.TimestampLTZ {
		return nil, nil, true, posErr(desc.Pos, "The window function %s(TABLE table_name, DESCRIPTOR(timecol), datetime interval) requires the timecol to be TIMESTAMP or TIMESTAMP_LTZ, but is %s.", name, tt)
	}
	ms := make([]int64, len(args)-2)
	for i, a := range args[2:] {
		d, err := v.intervalMillis(a)
		if err != nil {
			return nil, nil, true, fmt.Errorf("%s: %w", name, err)
		}
		ms[i] = d
	}
	w := logical.WindowSpec{Kind: kind, TimeCol: timeCol, TimeName: s[timeCol].Name, PartitionKeys: pkeys, PartitionNames: pnames}
	switch kind {
	case logical.Tumble, logical.Session:
		w.Size = ms[0]
	case logical.Hop:
		w.Slide, w.Size = ms[0], ms[1]
	case logical.Cumulate:
		w.Step, w.Size = ms[0], ms[1]
	}
	if len(ms) > nInt {
		if kind == logical.Session {
			return nil, nil, true, posErr(x.Call.Pos, "Invalid number of arguments to function 'SESSION'. Was expecting 3 arguments")
		}
		w.Offset = ms[nInt]
	}
	if w.Size <= 0 || (kind == logical.Hop && w.Slide <= 0) || (kind == logical.Cumulate && w.Step <= 0) {
		return nil, nil, true, posErr(x.Call.Pos, "%s: window size and slide/step must be positive intervals", name)
	}
	if kind == logical.Hop && w.Size%w.Slide != 0 {
		return nil, nil, true, posErr(x.Call.Pos, "HOP table function based aggregate requires size must be an integral multiple of slide, but got size %d ms and slide %d ms", w.Size, w.Slide)
	}
	if kind == logical.Cumulate && w.Size%w.Step != 0 {
		return nil, nil, true, posErr(x.Call.Pos, "CUMULATE table function based aggregate requires maxSize must be an integral multiple of step, but got maxSize %d ms and step %d ms.", w.Size, w.Step)
	}
	out := append(append(types.Schema(nil), s...), logical.WindowColumns(tt)...)
	n := &logical.WindowTableFunction{Input: in, Window: w, Out: out}
	nn, sc, err := v.aliased(n, tableFunctionAlias(x), x.ColumnAliases, x.Pos)
	return nn, sc, true, err
}

// intervalMillis evaluates a constant day-time interval argument.
func (v *Validator) intervalMillis(a ast.Expr) (int64, error) {
	b := &binder{v: v, sc: newScope(nil), env: &env{}, clause: "window argument"}
	x, err := b.expr(a)
	if err != nil {
		return 0, err
	}
	if x.Type().Kind != types.IntervalDayTime {
		return 0, fmt.Errorf("window arguments must be INTERVAL DAY TO SECOND literals, got %s", x.Type())
	}
	val := any(nil)
	if l, ok := x.(*logical.Literal); ok {
		val = l.Value
	} else {
		ctx := &function.EvalContext{Loc: v.opts.Loc, Now: v.opts.Now}
		if val, err = logical.Eval(ctx, v.fns, x, nil); err != nil {
			return 0, err
		}
	}
	d, ok := val.(int64)
	if !ok {
		return 0, fmt.Errorf("window arguments must be constant intervals")
	}
	return d, nil
}

// windowParams lists the parameter names of the windowing functions, in
// order (for calls with named arguments: DATA => TABLE t, TIMECOL =>
// DESCRIPTOR(ts), SIZE => INTERVAL '10' SECOND).
var windowParams = map[string][]string{
	"TUMBLE":   {"DATA", "TIMECOL", "SIZE", "OFFSET"},
	"HOP":      {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"},
	"CUMULATE": {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"},
	"SESSION":  {"DATA", "TIMECOL", "GAP"},
}

// windowArgs returns the arguments of a windowing function call in
// positional order.
func windowArgs(name string, call *ast.FunctionCall) ([]ast.Expr, error) {
	named := 0
	for _, a := range call.Args {
		if _, ok := a.(*ast.NamedArg); ok {
			named++
		}
	}
	if named == 0 {
		return call.Args, nil
	}
	if named != len(call.Args) {
		return nil, posErr(call.Pos, "All arguments of %s must be named when one is", name)
	}
	params := windowParams[name]
	byName := map[string]ast.Expr{}
	for _, a := range call.Args {
		na := a.(*ast.NamedArg)
		p := strings.ToUpper(na.Name)
		known := false
		for _, q := range params {
			known = known || q == p
		}
		if !known {
			return nil, posErr(na.Pos, "No parameter named '%s' in function %s", na.Name, name)
		}
		byName[p] = na.Value
	}
	var out []ast.Expr
	for i, p := range params {
		v, ok := byName[p]
		if !ok {
			if p == "OFFSET" {
				continue
			}
			return nil, posErr(call.Pos, "Missing argument %s (position %d) of function %s", p, i+1, name)
		}
		out = append(out, v)
	}
	return out, nil
}

// currentWatermark binds CURRENT_WATERMARK(rowtime): the current
// watermark of the operator evaluating it, of the rowtime's type (at
// precision 3), NULL before the first watermark. In batch mode there are
// no watermarks: it is NULL. ok is false for any other call.
func (b *binder) currentWatermark(x *ast.FunctionCall) (logical.Expr, bool, error) {
	if len(x.Name.Parts) != 1 || !strings.EqualFold(x.Name.Parts[0], "CURRENT_WATERMARK") {
		return nil, false, nil
	}
	if len(x.Args) != 1 || x.Star || x.Distinct {
		return nil, true, posErr(x.Pos, "Invalid number of arguments to function 'CURRENT_WATERMARK'. Was expecting 1 arguments")
	}
	arg, err := b.expr(x.Args[0])
	if err != nil {
		return nil, true, err
	}
	at := arg.Type()
	if at.Kind != types.Timestamp && at.Kind != types.TimestampLTZ {
		return nil, true, posErr(x.Pos, "The argument of CURRENT_WATERMARK must be a rowtime attribute (TIMESTAMP or TIMESTAMP_LTZ), but is %s", at)
	}
	t := types.Type{Kind: at.Kind, Precision: 3}
	if !b.v.opts.Streaming {
		return &logical.Literal{Value: nil, T: t}, true, nil
	}
	return logical.NewCall(logical.CurrentWatermarkDef, t, arg), true, nil
}
