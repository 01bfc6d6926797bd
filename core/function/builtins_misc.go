package function

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/types"
)

func registerMisc(r *Registry) {
	registerEncoding(r)
	r.Register(&Definition{Name: "IF",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 3 {
				return types.Type{}, nil, arityError("IF", len(args))
			}
			if _, ok := aBool(args[0]); !ok {
				return types.Type{}, nil, CallError("IF", args)
			}
			t, ok := CommonType(args[1], args[2])
			if !ok {
				return types.Type{}, nil, CallError("IF", args)
			}
			return t, []types.Type{types.BooleanT.WithNullable(args[0].Nullable()), t.WithNullable(args[1].Nullable()), t.WithNullable(args[2].Nullable())}, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if a[0] == true {
				return a[1], nil
			}
			return a[2], nil
		},
		Doc: Doc{Summary: "Returns value1 if the condition is TRUE, else value2.", Args: "condition, value1, value2", Example: "IF(1 > 0, 'a', 'b') → 'a'"}})
	r.Register(&Definition{Name: "IFNULL",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 2 {
				return types.Type{}, nil, arityError("IFNULL", len(args))
			}
			t, ok := CommonType(args...)
			if !ok {
				return types.Type{}, nil, CallError("IFNULL", args)
			}
			return t.WithNullable(args[1].Nullable()), castsTo(t, args), nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if a[0] != nil {
				return a[0], nil
			}
			return a[1], nil
		},
		Doc: Doc{Summary: "Returns value2 if value1 is NULL, else value1.", Args: "value1, value2", Example: "IFNULL(NULL, 1) → 1"}})
	extreme := func(name string, greatest bool) {
		r.Register(&Definition{Name: name, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) < 1 {
					return types.Type{}, nil, arityError(name, 0)
				}
				t, ok := CommonType(args...)
				if !ok || t.Kind == types.Array || t.Kind == types.Map || t.Kind == types.Row {
					return types.Type{}, nil, CallError(name, args)
				}
				return t, castsTo(t, args), nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				best := a[0]
				for _, x := range a[1:] {
					c := CompareValues(x, best, ct.Result)
					if (greatest && c > 0) || (!greatest && c < 0) {
						best = x
					}
				}
				return best, nil
			},
			Doc: Doc{Summary: map[bool]string{true: "Returns the greatest argument; NULL if any is NULL.", false: "Returns the least argument; NULL if any is NULL."}[greatest], Args: "value1, value2, …", Example: name + "(1, 3, 2)"}})
	}
	extreme("GREATEST", true)
	extreme("LEAST", false)
	r.Register(spec{name: "UUID", minArgs: 0, maxArgs: 0, result: fixedT(types.CharOf(36)), notNull: true, nondet: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			var b [16]byte
			if _, err := rand.Read(b[:]); err != nil {
				return nil, fmt.Errorf("UUID: %w", err)
			}
			b[6] = (b[6] & 0x0f) | 0x40
			b[8] = (b[8] & 0x3f) | 0x80
			h := hex.EncodeToString(b[:])
			return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
		},
		doc: Doc{Summary: "Returns a random (type 4) UUID string.", Example: "UUID()"}}.def())
	r.Register(spec{name: "CARDINALITY", minArgs: 1, maxArgs: 1, args: []argClass{func(t types.Type) (types.Type, bool) {
		return t, t.Kind == types.Array || t.Kind == types.Map
	}}, result: fixedT(types.IntT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			switch x := a[0].(type) {
			case []any:
				return int32(len(x)), nil
			case *types.MapValue:
				return int32(len(x.Keys)), nil
			}
			return nil, fmt.Errorf("internal: CARDINALITY of %T", a[0])
		},
		doc: Doc{Summary: "Number of elements of an array or entries of a map.", Args: "array | map", Example: "CARDINALITY(ARRAY[1, 2]) → 2"}}.def())
	r.Register(spec{name: "TYPEOF", minArgs: 1, maxArgs: 2, result: fixedT(types.StringT), notNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return ct.Args[0].String(), nil
		},
		doc: Doc{Summary: "Returns the SQL type of the argument.", Args: "value", Example: "TYPEOF(1) → 'INT NOT NULL'"}}.def())
}

func registerEncoding(r *Registry) {
	r.Register(str1("TO_BASE64", "Encodes the string's UTF-8 bytes as base64.", "TO_BASE64('hello') → 'aGVsbG8='",
		func(s string) (any, error) { return base64.StdEncoding.EncodeToString([]byte(s)), nil }, types.StringT))
	r.Register(spec{name: "FROM_BASE64", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			b, err := base64.StdEncoding.DecodeString(a[0].(string))
			if err != nil {
				return nil, &EvalError{Class: "java.lang.IllegalArgumentException", Msg: err.Error()}
			}
			return string(b), nil
		},
		doc: Doc{Summary: "Decodes a base64 string.", Args: "string", Example: "FROM_BASE64('aGVsbG8=') → 'hello'"}}.def())
	r.Register(spec{name: "HEX", minArgs: 1, maxArgs: 1, args: []argClass{func(t types.Type) (types.Type, bool) {
		if t.Kind == types.Null {
			return types.BigIntT, true
		}
		if t.IsInteger() {
			return types.BigIntT.WithNullable(t.Nullable()), true
		}
		return t, t.IsString()
	}}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				return strings.ToUpper(hex.EncodeToString([]byte(s))), nil
			}
			return strings.ToUpper(strconv.FormatUint(uint64(argInt(a[0])), 16)), nil
		},
		doc: Doc{Summary: "Hexadecimal form of an integer (two's complement) or of a string's bytes.", Args: "integer | string", Example: "HEX(17) → '11'"}}.def())
	r.Register(spec{name: "BIN", minArgs: 1, maxArgs: 1, args: []argClass{aBigInt}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return strconv.FormatUint(uint64(argInt(a[0])), 2), nil
		},
		doc: Doc{Summary: "Binary form of an integer (two's complement).", Args: "integer", Example: "BIN(4) → '100'"}}.def())
	r.Register(spec{name: "CONVERT_TZ", minArgs: 3, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			us, err := ParseTimestamp(a[0].(string))
			if err != nil {
				return nil, &EvalError{Class: "java.time.format.DateTimeParseException", Msg: err.Error()}
			}
			from, err := loadZone(a[1].(string))
			if err != nil {
				return nil, err
			}
			to, err := loadZone(a[2].(string))
			if err != nil {
				return nil, err
			}
			t := fromWall(tsOf(us), from).In(to)
			return FormatJavaDate(t, "yyyy-MM-dd HH:mm:ss")
		},
		doc: Doc{Summary: "Converts a 'yyyy-MM-dd HH:mm:ss' string from one time zone to another.", Args: "string, fromZone, toZone", Example: "CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles') → '1969-12-31 16:00:00'"}}.def())
}

// loadZone resolves a region id ('Asia/Shanghai'), 'UTC' or an offset id
// ('GMT+08:00', '+08:00').
func loadZone(id string) (*time.Location, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(id, "GMT"), "UTC")
	if s != id || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		if s == "" {
			return time.UTC, nil
		}
		sign := 1
		switch s[0] {
		case '-':
			sign = -1
		case '+':
		default:
			return nil, &EvalError{Class: "java.time.DateTimeException", Msg: "Invalid ID for offset-based ZoneId: " + id}
		}
		h, m, _ := strings.Cut(s[1:], ":")
		hh, err1 := strconv.Atoi(h)
		mm := 0
		var err2 error
		if m != "" {
			mm, err2 = strconv.Atoi(m)
		}
		if err1 != nil || err2 != nil || hh > 18 || mm > 59 {
			return nil, &EvalError{Class: "java.time.DateTimeException", Msg: "Invalid ID for offset-based ZoneId: " + id}
		}
		return time.FixedZone(id, sign*(hh*3600+mm*60)), nil
	}
	z, err := time.LoadLocation(id)
	if err != nil {
		return nil, &EvalError{Class: "java.time.zone.ZoneRulesException", Msg: "Unknown time-zone ID: " + id}
	}
	return z, nil
}
