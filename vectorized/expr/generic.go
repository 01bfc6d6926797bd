package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// safeFunctions never return an error for any input (their failure modes
// are NULL results), so they may be evaluated on rows a lazy construct
// skips.
var safeFunctions = map[string]bool{
	"UPPER": true, "LOWER": true, "CHAR_LENGTH": true, "CHARACTER_LENGTH": true,
	"IS NULL": true, "IS NOT NULL": true, "IS TRUE": true, "IS NOT TRUE": true,
	"IS FALSE": true, "IS NOT FALSE": true, "IS DISTINCT FROM": true, "IS NOT DISTINCT FROM": true,
	"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
	"AND": true, "OR": true, "NOT": true, "COALESCE": true, "NULLIF": true, "IFNULL": true, "IF": true,
	"ABS": true, "SIGN": true, "NEGATE": true, "FLOOR": true, "CEIL": true, "CEILING": true,
	"SQRT": true, "EXP": true, "LN": true, "LOG10": true, "LOG2": true, "SIN": true, "COS": true, "TAN": true,
	"REVERSE": true, "INITCAP": true, "MD5": true, "SHA1": true, "SHA256": true, "TRIM": true, "LTRIM": true, "RTRIM": true,
	"YEAR": true, "MONTH": true, "DAYOFMONTH": true, "HOUR": true, "MINUTE": true, "SECOND": true, "QUARTER": true,
	"DAYOFWEEK": true, "DAYOFYEAR": true, "WEEK": true, "GREATEST": true, "LEAST": true,
	"$ROW": true, "$ARRAY": true, "$ITEM": true, "$FIELD": true, "IN": true,
	"PI": true, "E": true, "CURRENT_TIMESTAMP": true, "NOW": true, "PROCTIME": true, "CURRENT_DATE": true, "LOCALTIMESTAMP": true,
	"CURRENT_TIME": true, "LOCALTIME": true,
}

func (c *compiler) compileCall(x *logical.Call) (node, error) {
	def, err := x.Definition()
	if err != nil {
		return nil, err
	}
	args := make([]node, len(x.Args))
	for i, a := range x.Args {
		n, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = n
	}
	if n, err := c.special(x, args); n != nil || err != nil {
		return n, err
	}
	if def == nil || def.Eval == nil {
		return nil, fmt.Errorf("No match found for function signature %s", x.Name)
	}
	if n, ok, err := c.scriptCall(x, def, args); ok {
		return n, err
	}
	if n, ok := c.goCall(x, def, args); ok { // Go functions (gofunc.go)
		return n, nil
	}
	if n := c.newStrMap(x, def, args); n != nil { // strmap.go
		return n, nil
	}
	return c.generic(x, def, args)
}

// special returns a specialised kernel for the call, or nil to use the
// generic adapter.
func (c *compiler) special(x *logical.Call, args []node) (node, error) {
	if n := c.constArgSpecial(x, args); n != nil { // string_kernels.go
		return n, nil
	}
	switch x.Name {
	case "$FIELD":
		if l, ok := args[1].(*litNode); ok {
			if idx, ok := l.v.(int32); ok {
				return &structFieldNode{arg: args[0], idx: int(idx), t: x.T}, nil
			}
		}
	case "AND", "OR":
		return newLogic(x.Name == "AND", args, x.T), nil
	case "NOT":
		return &notNode{arg: args[0], t: x.T}, nil
	case "HASH_CODE": // hash_code.go
		if len(args) == 1 {
			return &hashCodeNode{arg: args[0], t: x.T}, nil
		}
	case "IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE":
		return &isNode{op: x.Name, arg: args[0], t: x.T}, nil
	case "+", "-", "*", "/", "MOD":
		if n := newArith(x.Name, args[0], args[1], x.T); n != nil {
			return n, nil
		}
		return newDecArith(x.Name, args[0], args[1], x.T), nil
	case "=", "<>", "<", "<=", ">", ">=":
		a, b := dropLosslessCast(args[0], args[1])
		b, a = dropLosslessCast(b, a)
		return newCompare(x.Name, a, b, x.T), nil
	case "COALESCE":
		for i, a := range args {
			n, err := c.coerce(a, x.T)
			if err != nil {
				return nil, err
			}
			args[i] = n
		}
		return &coalesceNode{args: args, t: x.T}, nil
	case "LIKE":
		return newLike(args, x.T)
	case "IN":
		return newIn(args, x.T), nil
	case "UPPER", "LOWER":
		if args[0].typ().IsString() {
			return &caseConvNode{upper: x.Name == "UPPER", arg: args[0], t: x.T}, nil
		}
	case "CONCAT":
		all := true
		for _, a := range args {
			if !a.typ().IsString() {
				all = false
			}
		}
		if all {
			return &concatNode{args: args, t: x.T}, nil
		}
	case "YEAR", "QUARTER", "MONTH", "DAYOFMONTH", "DAYOFYEAR", "DAYOFWEEK", "HOUR", "MINUTE", "SECOND", "EXTRACT":
		if n := newField(x.Name, args, x.T); n != nil {
			return n, nil
		}
	case "SUBSTRING", "SUBSTR":
		if args[0].typ().IsString() {
			return newSubstring(args, x.T), nil
		}
	}
	return nil, nil
}

// ---- generic function adapter ----

type callNode struct {
	name string
	def  *function.Definition
	args []node
	ct   function.CallTypes
	at   arrow.DataType
	ctx  *function.EvalContext
}

func (c *compiler) generic(x *logical.Call, def *function.Definition, args []node) (node, error) {
	at, err := types.ArrowType(x.T)
	if err != nil {
		return nil, err
	}
	return &callNode{name: x.Name, def: def, args: args, ct: logical.CallTypesOf(x), at: at, ctx: c.ctx}, nil
}

func (n *callNode) typ() types.Type { return n.ct.Result }
func (n *callNode) canFail() bool   { return !safeFunctions[n.name] || anyCanFail(n.args...) }

func (n *callNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (out arrow.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("internal: evaluating %s: %v", n.name, r)
		}
	}()
	rows := int(rec.NumRows())
	arrs := make([]arrow.Array, len(n.args))
	consts := make([]any, len(n.args))
	isConst := make([]bool, len(n.args))
	defer releaseAll(arrs)
	for i, a := range n.args {
		if l, ok := a.(*litNode); ok {
			consts[i], isConst[i] = l.v, true
			continue
		}
		arr, err := a.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		arrs[i] = arr
	}
	b := array.NewBuilder(mem, n.at)
	defer b.Release()
	b.Reserve(rows)
	vals := make([]any, len(n.args))
	for r := 0; r < rows; r++ {
		null := false
		for i := range n.args {
			if isConst[i] {
				vals[i] = consts[i]
			} else {
				vals[i] = types.GetValue(arrs[i], r, n.ct.Args[i])
			}
			if vals[i] == nil {
				null = true
			}
		}
		if null && n.def.NullOnNull {
			b.AppendNull()
			continue
		}
		v, err := n.def.Eval(n.ctx, n.ct, vals)
		if err != nil {
			return nil, err
		}
		if err := types.AppendValue(b, v, n.ct.Result); err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
	}
	return b.NewArray(), nil
}

// ---- generic cast ----

type castNode struct {
	arg  node
	to   types.Type
	try  bool
	at   arrow.DataType
	ctx  *function.EvalContext
	safe bool
}

func (c *compiler) castNode(arg node, to types.Type, try bool) (node, error) {
	from := arg.typ()
	if fast := newNumCast(arg, to); fast != nil {
		return fast, nil
	}
	if fast := newIntToStr(arg, to); fast != nil {
		return fast, nil
	}
	if fast := newStrCast(arg, to); fast != nil && !try { // strcast.go
		return fast, nil
	}
	at, err := types.ArrowType(to)
	if err != nil {
		return nil, err
	}
	safe := try || from.Kind == types.Null || (to.IsString() && !from.IsString()) ||
		(from.IsNumeric() && (to.IsNumeric() || to.Kind == types.Boolean)) || from.EqualIgnoringNull(to)
	return &castNode{arg: arg, to: to, try: try, at: at, ctx: c.ctx, safe: safe}, nil
}

func (n *castNode) typ() types.Type { return n.to }
func (n *castNode) canFail() bool   { return !n.safe || n.arg.canFail() }

func (n *castNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (out arrow.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("internal: evaluating CAST to %s: %v", n.to, r)
		}
	}()
	a, err := n.arg.eval(rec, mem) // may be returned as is
	if err != nil {
		return nil, err
	}
	defer a.Release()
	from := n.arg.typ()
	if at, err := types.ArrowType(from); err == nil && arrow.TypeEqual(at, n.at) && castIsIdentity(from, n.to) {
		a.Retain()
		return a, nil
	}
	rows := a.Len()
	b := array.NewBuilder(mem, n.at)
	defer b.Release()
	b.Reserve(rows)
	for r := 0; r < rows; r++ {
		v := types.GetValue(a, r, from)
		out, err := function.CastValue(n.ctx, v, from, n.to)
		if err != nil {
			if n.try {
				b.AppendNull()
				continue
			}
			return nil, err
		}
		if err := types.AppendValue(b, out, n.to); err != nil {
			return nil, fmt.Errorf("CAST: %w", err)
		}
	}
	return b.NewArray(), nil
}

// castIsIdentity reports casts that do not change any value (only
// nullability, or widening a VARCHAR/VARBINARY length limit).
func castIsIdentity(from, to types.Type) bool {
	if from.EqualIgnoringNull(to) {
		return true
	}
	if from.Kind == types.VarChar && to.Kind == types.VarChar && to.Precision >= from.Precision {
		return true
	}
	if from.Kind == types.Char && to.Kind == types.VarChar && to.Precision >= from.Precision {
		return true
	}
	if from.Kind == types.VarBinary && to.Kind == types.VarBinary && to.Precision >= from.Precision {
		return true
	}
	return false
}
