package validate

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/tablerun/tablerun/planner/ast"
)

// The legacy group windows: GROUP BY TUMBLE(ts, size), HOP(ts, slide,
// size) or SESSION(ts, gap) with the auxiliary functions TUMBLE_START,
// TUMBLE_END, TUMBLE_ROWTIME (HOP_…, SESSION_…) in SELECT and HAVING.
// They are planned as the window table functions: the SELECT is
// rewritten to read TABLE(TUMBLE(TABLE $gw, DESCRIPTOR(ts), size)), where
// $gw is a common table expression holding the original FROM and WHERE,
// and to group by window_start and window_end. A legacy SESSION window is
// per group key, so the other GROUP BY columns partition the sessions.

var legacyWindows = map[string]bool{"TUMBLE": true, "HOP": true, "SESSION": true}

// legacyAux maps an auxiliary function's suffix to the window column.
var legacyAux = map[string]string{"START": "window_start", "END": "window_end", "ROWTIME": "window_time"}

var legacyCount atomic.Int64

// rewriteGroupWindow rewrites a SELECT with a legacy group window; ok is
// false (and sel returned) when its GROUP BY has none.
func (v *Validator) rewriteGroupWindow(sel *ast.Select, e *env) (*ast.Select, *env, bool, error) {
	win := -1
	var call *ast.FunctionCall
	for i, g := range sel.GroupBy {
		fc, ok := g.(*ast.FunctionCall)
		if !ok || fc.Over != nil || len(fc.Name.Parts) != 1 || !legacyWindows[strings.ToUpper(fc.Name.Parts[0])] {
			continue
		}
		if call != nil {
			return nil, nil, true, posErr(fc.Pos, "Only a single window group function may be used in GROUP BY")
		}
		win, call = i, fc
	}
	if call == nil {
		return sel, e, false, nil
	}
	kind := strings.ToUpper(call.Name.Parts[0])
	if len(call.Args) < 2 {
		return nil, nil, true, posErr(call.Pos, "Invalid number of arguments to function '%s'", kind)
	}
	tcol, ok := call.Args[0].(*ast.Identifier)
	if !ok || len(tcol.Parts) == 0 {
		return nil, nil, true, posErr(call.Pos, "The time attribute of a group window must be a column")
	}
	alias := ""
	switch f := sel.From.(type) {
	case *ast.TableName:
		alias = f.Alias
		if alias == "" {
			alias = f.Name.Last()
		}
	case *ast.SubqueryRef:
		alias = f.Alias
	case nil:
		return nil, nil, true, posErr(call.Pos, "Group windows need a FROM clause")
	default:
		return nil, nil, true, unsupported("legacy group windows over a join; use the window table functions")
	}
	name := fmt.Sprintf("$gw%d", legacyCount.Add(1))
	inner := &ast.Select{Pos: sel.Pos, Items: []ast.SelectItem{{Star: true}}, From: sel.From, Where: sel.Where}
	ne := &env{ctes: map[string]*cteDef{name: {q: inner, env: e}}, parent: e, outer: e.outer, corr: e.corr}
	ta := &ast.TableArg{Pos: call.Pos, Name: ast.ObjectName{Parts: []string{name}}}
	var groupBy []ast.Expr
	for i, g := range sel.GroupBy {
		if i == win {
			continue
		}
		groupBy = append(groupBy, g)
		if kind == "SESSION" {
			if _, ok := g.(*ast.Identifier); !ok {
				return nil, nil, true, unsupported("legacy SESSION windows grouped by expressions other than columns")
			}
			ta.PartitionBy = append(ta.PartitionBy, g)
		}
	}
	groupBy = append(groupBy, &ast.Identifier{Pos: call.Pos, Parts: []string{"window_start"}},
		&ast.Identifier{Pos: call.Pos, Parts: []string{"window_end"}})
	args := append([]ast.Expr{ta, &ast.Descriptor{Pos: tcol.Pos, Columns: []string{tcol.Parts[len(tcol.Parts)-1]}}}, call.Args[1:]...)
	tvf := &ast.TableFunctionRef{Pos: call.Pos, Call: &ast.FunctionCall{Pos: call.Pos, Name: ast.ObjectName{Parts: []string{kind}}, Args: args}, Alias: alias}

	var auxErr error
	usesTime := false
	aux := func(x ast.Expr) (ast.Expr, bool) {
		fc, ok := x.(*ast.FunctionCall)
		if !ok || len(fc.Name.Parts) != 1 {
			return nil, false
		}
		fn := strings.ToUpper(fc.Name.Parts[0])
		for _, k := range []string{"TUMBLE", "HOP", "SESSION"} {
			suffix, ok := strings.CutPrefix(fn, k+"_")
			if !ok {
				continue
			}
			col, ok := legacyAux[suffix]
			if !ok {
				if suffix == "PROCTIME" {
					auxErr = unsupported("%s", fn)
				}
				return nil, false
			}
			usesTime = usesTime || col == "window_time"
			if k != kind && auxErr == nil {
				auxErr = posErr(fc.Pos, "Call to auxiliary group function '%s' must have matching call to group function '%s' in GROUP BY clause", fn, k)
			}
			return &ast.Identifier{Pos: fc.Pos, Parts: []string{col}}, true
		}
		return nil, false
	}
	out := *sel
	out.From, out.Where, out.GroupBy = tvf, nil, groupBy
	out.Items = make([]ast.SelectItem, len(sel.Items))
	for i, it := range sel.Items {
		if it.Expr != nil {
			if _, direct := aux(it.Expr); direct && it.Alias == "" {
				it.Alias = fmt.Sprintf("EXPR$%d", i)
			}
			it.Expr = rewriteAST(it.Expr, aux)
		}
		out.Items[i] = it
	}
	if sel.Having != nil {
		out.Having = rewriteAST(sel.Having, aux)
	}
	if auxErr != nil {
		return nil, nil, true, auxErr
	}
	if usesTime {
		out.GroupBy = append(out.GroupBy, &ast.Identifier{Pos: call.Pos, Parts: []string{"window_time"}})
	}
	return &out, ne, true, nil
}

var (
	astExprType  = reflect.TypeOf((*ast.Expr)(nil)).Elem()
	astQueryType = reflect.TypeOf((*ast.Query)(nil)).Elem()
)

// rewriteAST returns e with every expression fn replaces replaced,
// copying the nodes on the way and sharing the rest. It does not descend
// into subqueries.
func rewriteAST(e ast.Expr, fn func(ast.Expr) (ast.Expr, bool)) ast.Expr {
	nv, changed := rewriteValue(reflect.ValueOf(e), fn)
	if !changed {
		return e
	}
	return nv.Interface().(ast.Expr)
}

func rewriteValue(v reflect.Value, fn func(ast.Expr) (ast.Expr, bool)) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		nv, ch := rewriteValue(v.Elem(), fn)
		if !ch {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(nv)
		return out, true
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		if v.Type().Implements(astQueryType) {
			return v, false
		}
		if v.Type().Implements(astExprType) {
			if r, ok := fn(v.Interface().(ast.Expr)); ok {
				return reflect.ValueOf(r), true
			}
		}
		if v.Elem().Kind() != reflect.Struct {
			return v, false
		}
		ns, ch := rewriteValue(v.Elem(), fn)
		if !ch {
			return v, false
		}
		p := reflect.New(v.Elem().Type())
		p.Elem().Set(ns)
		return p, true
	case reflect.Struct:
		var out reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			nf, ch := rewriteValue(v.Field(i), fn)
			if !ch {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
			if !nf.Type().AssignableTo(v.Field(i).Type()) {
				continue // e.g. a *FunctionCall field cannot hold an identifier
			}
			out.Field(i).Set(nf)
		}
		if !out.IsValid() {
			return v, false
		}
		return out, true
	case reflect.Slice:
		var out reflect.Value
		for i := range v.Len() {
			ne, ch := rewriteValue(v.Index(i), fn)
			if !ch {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(out, v)
			}
			if !ne.Type().AssignableTo(v.Type().Elem()) {
				continue
			}
			out.Index(i).Set(ne)
		}
		if !out.IsValid() {
			return v, false
		}
		return out, true
	}
	return v, false
}
