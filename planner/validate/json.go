package validate

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// jsonCall binds a JSON function written with keyword clauses to the
// calling conventions of core/function/builtins_json.go: JSON_VALUE(json,
// path, onEmpty, emptyDefault, onError, errorDefault) with Call.T the
// RETURNING type, JSON_QUERY(json, path, wrapper, onEmpty, onError),
// JSON_EXISTS(json, path, onError), JSON_OBJECT / JSON_ARRAY with their
// ON NULL variants.
func (b *binder) jsonCall(x *ast.JSONCall) (logical.Expr, error) {
	args, err := b.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	str := func(s string) logical.Expr {
		return &logical.Literal{Value: s, T: notNull(types.CharOf(len(s)))}
	}
	kind := func(bh *ast.JSONBehavior, def string) string {
		if bh == nil {
			return def
		}
		return bh.Kind
	}
	switch x.Name {
	case "JSON_VALUE":
		if len(args) != 2 {
			return nil, posErr(x.Pos, "Invalid number of arguments to function 'JSON_VALUE'. Was expecting 2 arguments")
		}
		rt := types.StringT
		if x.Returning != nil {
			if rt, err = resolveType(x.Returning); err != nil {
				return nil, err
			}
		}
		call, err := b.call(x.Pos, "JSON_VALUE", args[0], args[1])
		if err != nil {
			return nil, err
		}
		c, ok := call.(*logical.Call)
		if !ok {
			return nil, posErr(x.Pos, "internal: JSON_VALUE did not bind to a call")
		}
		def := func(bh *ast.JSONBehavior) (logical.Expr, error) {
			if bh == nil || bh.Default == nil {
				return &logical.Literal{Value: nil, T: rt.WithNullable(true)}, nil
			}
			d, err := b.expr(bh.Default)
			if err != nil {
				return nil, err
			}
			if rt.IsString() && d.Type().Kind == types.Boolean {
				// Flink turns the default into the STRING result with
				// Java's String.valueOf: "false", not CAST's 'FALSE'
				return b.call(x.Pos, "LOWER", coerce(d, rt))
			}
			return coerce(d, rt), nil
		}
		ed, err := def(x.OnEmpty)
		if err != nil {
			return nil, err
		}
		rd, err := def(x.OnError)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, str(kind(x.OnEmpty, "NULL")), ed, str(kind(x.OnError, "NULL")), rd)
		c.T = rt.WithNullable(true)
		return c, nil
	case "JSON_QUERY":
		if len(args) != 2 {
			return nil, posErr(x.Pos, "Invalid number of arguments to function 'JSON_QUERY'. Was expecting 2 arguments")
		}
		name := "JSON_QUERY"
		if x.Returning != nil {
			rt, err := resolveType(x.Returning)
			if err != nil {
				return nil, err
			}
			switch {
			case rt.IsString():
			case rt.Kind == types.Array && rt.Elem != nil && rt.Elem.IsString():
				name = "$JSON_QUERY_ARRAY" // core/function/builtins_json_array.go
			default:
				return nil, unsupported("JSON_QUERY RETURNING " + rt.String())
			}
		}
		wrapper := x.Wrapper
		if wrapper == "" {
			wrapper = "WITHOUT ARRAY"
		}
		return b.call(x.Pos, name, args[0], args[1], str(wrapper), str(kind(x.OnEmpty, "NULL")), str(kind(x.OnError, "NULL")))
	case "JSON_EXISTS":
		if len(args) != 2 {
			return nil, posErr(x.Pos, "Invalid number of arguments to function 'JSON_EXISTS'. Was expecting 2 arguments")
		}
		return b.call(x.Pos, "JSON_EXISTS", args[0], args[1], str(kind(x.OnError, "FALSE")))
	case "JSON_OBJECT", "JSON_ARRAY":
		onNull := x.OnNull
		if onNull == "" {
			onNull = map[bool]string{true: "NULL", false: "ABSENT"}[x.Name == "JSON_OBJECT"]
		}
		step := 1
		if x.Name == "JSON_OBJECT" {
			step = 2
		}
		// values made by a nested JSON constructor are inserted as JSON
		raw := make([]byte, 0, len(args)/step)
		for i := step - 1; i < len(args); i += step {
			c, ok := args[i].(*logical.Call)
			nested := ok && (c.Name == "JSON_OBJECT" || c.Name == "JSON_ARRAY" || c.Name == "$JSON_OBJECT" || c.Name == "$JSON_ARRAY")
			raw = append(raw, map[bool]byte{true: '1', false: '0'}[nested])
		}
		return b.call(x.Pos, "$"+x.Name, append([]logical.Expr{str(onNull), str(string(raw))}, args...)...)
	}
	return nil, unsupported(x.Name)
}
