package function

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

// callFn infers and evaluates a built-in on argument values of the given
// types, honouring NullOnNull as the evaluators do.
func callFn(t *testing.T, name string, ts []types.Type, args ...any) (any, error) {
	t.Helper()
	d, ok := Builtins().Lookup(name)
	require.True(t, ok, name)
	res, casts, err := d.Infer(ts)
	if err != nil {
		return nil, err
	}
	argT := make([]types.Type, len(ts))
	for i := range ts {
		argT[i] = ts[i]
		if casts != nil && casts[i].Kind != 0 {
			argT[i] = casts[i]
		}
	}
	if d.NullOnNull {
		for _, a := range args {
			if a == nil {
				return nil, nil
			}
		}
	}
	return d.Eval(&EvalContext{Loc: time.UTC}, CallTypes{Args: argT, Result: res}, args)
}

var (
	tStr    = types.StringT
	tInt    = types.IntT
	tBool   = types.BooleanT
	tIntArr = types.ArrayOf(types.IntT)
	tStrArr = types.ArrayOf(types.StringT)
	tBytes  = types.BytesT
	tMapSI  = types.MapOf(types.StringT, types.IntT)
)

func TestNewBuiltins(t *testing.T) {
	ts := func(xs ...types.Type) []types.Type { return xs }
	m := func(kv ...any) *types.MapValue {
		out := &types.MapValue{Keys: []any{}, Values: []any{}}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Keys = append(out.Keys, kv[i])
			out.Values = append(out.Values, kv[i+1])
		}
		return out
	}
	cases := []struct {
		name string
		ts   []types.Type
		args []any
		want any
	}{
		// collections
		{"ARRAY_APPEND", ts(tIntArr, tInt), []any{[]any{int32(1)}, int32(2)}, []any{int32(1), int32(2)}},
		{"ARRAY_APPEND", ts(tIntArr, tInt), []any{[]any{int32(1)}, nil}, []any{int32(1), nil}},
		{"ARRAY_APPEND", ts(tIntArr, tInt), []any{nil, int32(2)}, nil},
		{"ARRAY_PREPEND", ts(tIntArr, tInt), []any{[]any{int32(1)}, int32(0)}, []any{int32(0), int32(1)}},
		{"ARRAY_EXCEPT", ts(tIntArr, tIntArr), []any{[]any{int32(1), int32(2), int32(2), nil, int32(3)}, []any{int32(2)}}, []any{int32(1), nil, int32(3)}},
		{"ARRAY_EXCEPT", ts(tIntArr, tIntArr), []any{[]any{int32(2)}, []any{int32(2)}}, []any{}},
		{"ARRAY_EXCEPT", ts(tIntArr, tIntArr), []any{[]any{int32(2)}, nil}, nil},
		{"ARRAY_INTERSECT", ts(tIntArr, tIntArr), []any{[]any{int32(1), int32(2), int32(2), nil, int32(3)}, []any{int32(3), nil, int32(2)}}, []any{int32(2), nil, int32(3)}},
		{"ARRAY_MAX", ts(tIntArr), []any{[]any{int32(1), int32(20), nil, int32(3)}}, int32(20)},
		{"ARRAY_MIN", ts(tIntArr), []any{[]any{int32(1), int32(20), nil, int32(3)}}, int32(1)},
		{"ARRAY_MAX", ts(tIntArr), []any{[]any{nil}}, nil},
		{"ARRAY_MAX", ts(tIntArr), []any{[]any{}}, nil},
		{"ARRAY_MIN", ts(tStrArr), []any{[]any{"b", "a"}}, "a"},
		{"ARRAY_SORT", ts(tIntArr), []any{[]any{int32(3), nil, int32(1)}}, []any{nil, int32(1), int32(3)}},
		{"ARRAY_SORT", ts(tIntArr, tBool), []any{[]any{int32(3), nil, int32(1)}, false}, []any{int32(3), int32(1), nil}},
		{"ARRAY_SORT", ts(tIntArr, tBool, tBool), []any{[]any{int32(3), nil, int32(1)}, true, false}, []any{int32(1), int32(3), nil}},
		{"ARRAY_SORT", ts(tIntArr, tBool, tBool), []any{[]any{int32(3), nil, int32(1)}, false, true}, []any{nil, int32(3), int32(1)}},
		{"ARRAY_SORT", ts(tIntArr, tBool), []any{[]any{int32(3)}, nil}, nil},
		{"SPLIT", ts(tStr, tStr), []any{"a,b,,c,", ","}, []any{"a", "b", "", "c", ""}},
		{"SPLIT", ts(tStr, tStr), []any{"abc", ""}, []any{"a", "b", "c"}},
		{"SPLIT", ts(tStr, tStr), []any{"abc", "x"}, []any{"abc"}},
		{"SPLIT", ts(tStr, tStr), []any{nil, "x"}, nil},
		{"MAP_UNION", ts(tMapSI, tMapSI), []any{m("a", int32(1)), m("a", int32(2), "b", int32(3))}, m("a", int32(2), "b", int32(3))},
		{"MAP_UNION", ts(tMapSI, tMapSI), []any{m("a", int32(1)), nil}, nil},
		// strings
		{"STARTSWITH", ts(tStr, tStr), []any{"Flink", "Fl"}, true},
		{"STARTSWITH", ts(tStr, tStr), []any{"Flink", ""}, true},
		{"STARTSWITH", ts(tBytes, tBytes), []any{[]byte("ab"), []byte("b")}, false},
		{"ENDSWITH", ts(tStr, tStr), []any{"Flink", "nk"}, true},
		{"ENDSWITH", ts(tStr, tStr), []any{"Flink", nil}, nil},
		{"ELT", ts(tInt, tStr, tStr), []any{int64(2), "a", "b"}, "b"},
		{"ELT", ts(tInt, tStr, tStr), []any{int64(3), "a", "b"}, nil},
		{"ELT", ts(tInt, tStr, tStr), []any{int64(0), "a", "b"}, nil},
		{"ELT", ts(tInt, tStr, tStr), []any{nil, "a", "b"}, nil},
		{"ELT", ts(tInt, tStr, tStr), []any{int64(1), nil, "b"}, nil},
		{"PRINTF", ts(tStr, tStr, tInt), []any{"Hello World %d %s", "x", int32(100)}, nil}, // %d of a string
		{"PRINTF", ts(tStr, tInt, tStr), []any{"Hello World %d %s", int32(100), "days"}, "Hello World 100 days"},
		{"PRINTF", ts(tStr, tInt), []any{"%5d|%-5d|%05d|%,d|%+d|%(d", int32(42)}, nil}, // too few arguments
		{"PRINTF", ts(tStr, tInt, tInt, tInt, tInt, tInt, tInt), []any{"%5d|%-5d|%05d|%,d|%+d|%(d", int32(42), int32(42), int32(-42), int32(1234567), int32(5), int32(-5)}, "   42|42   |-0042|1,234,567|+5|(5)"},
		{"PRINTF", ts(tStr, types.DoubleT, types.DoubleT, types.DoubleT), []any{"%.2f %e %g", 3.14159, 12345.678, 0.0001234}, "3.14 1.234568e+04 0.000123400"},
		{"PRINTF", ts(tStr, tStr, tStr, tStr), []any{"%s/%S/%.2s %%%n", nil, "ab", "xyz"}, "null/AB/xy %\n"},
		{"PRINTF", ts(tStr, tInt, tInt), []any{"%x %X %o %2$d %<x", int32(255), int32(-1)}, nil},
		{"PRINTF", ts(tStr, tInt, tInt), []any{"%x %X %2$d %<x", int32(255), int32(-1)}, "ff FFFFFFFF -1 ffffffff"},
		{"PRINTF", ts(tStr, tBool, tInt), []any{"%b %b %c", nil, int32(0), int32(65)}, nil}, // missing third argument
		{"PRINTF", ts(tStr, tBool, tInt, tInt), []any{"%b %b %c", nil, int32(0), int32(65)}, "false true A"},
		{"PRINTF", ts(tStr), []any{"%q"}, nil},
		{"PRINTF", ts(tStr, tInt), []any{nil, int32(1)}, nil},
		{"TRANSLATE", ts(tStr, tStr, tStr), []any{"AaBbCc", "abc", "123"}, "A1B2C3"},
		{"TRANSLATE", ts(tStr, tStr, tStr), []any{"AaBbCc", "abc", "1"}, "A1BC"},
		{"TRANSLATE", ts(tStr, tStr, tStr), []any{"AaBbCc", "abc", ""}, "ABC"},
		{"TRANSLATE", ts(tStr, tStr, tStr), []any{nil, "abc", ""}, nil},
		{"URL_ENCODE", ts(tStr), []any{"a b&c=d~*é"}, "a+b%26c%3Dd%7E*%C3%A9"},
		{"URL_DECODE", ts(tStr), []any{"a+b%26c%3Dd%7E*%C3%A9"}, "a b&c=d~*é"},
		{"URL_DECODE", ts(tStr), []any{"a%2"}, nil},
		{"URL_DECODE", ts(tStr), []any{"a%zz"}, nil},
		{"REGEXP_COUNT", ts(tStr, tStr), []any{"ababa", "ab"}, int32(2)},
		{"REGEXP_COUNT", ts(tStr, tStr), []any{"ababa", "("}, nil},
		{"REGEXP_EXTRACT_ALL", ts(tStr, tStr), []any{"k1=v1&k2=v2", `(\w+)=(\w+)`}, []any{"k1", "k2"}},
		{"REGEXP_EXTRACT_ALL", ts(tStr, tStr, tInt), []any{"k1=v1&k2=v2", `(\w+)=(\w+)`, int64(2)}, []any{"v1", "v2"}},
		{"REGEXP_EXTRACT_ALL", ts(tStr, tStr, tInt), []any{"k1=v1", `(\w+)=(\w+)`, int64(0)}, []any{"k1=v1"}},
		{"REGEXP_EXTRACT_ALL", ts(tStr, tStr, tInt), []any{"k1=v1", `(\w+)=(\w+)`, int64(3)}, nil},
		{"REGEXP_EXTRACT_ALL", ts(tStr, tStr), []any{"x", `(y)`}, []any{}},
		{"REGEXP_EXTRACT_ALL", ts(tStr, tStr), []any{"x", `y`}, nil}, // no group 1
		{"REGEXP_INSTR", ts(tStr, tStr), []any{"héllo 42", "[0-9]+"}, int32(7)},
		{"REGEXP_INSTR", ts(tStr, tStr), []any{"hello", "[0-9]+"}, int32(0)},
		{"REGEXP_SUBSTR", ts(tStr, tStr), []any{"hello 42 7", "[0-9]+"}, "42"},
		{"REGEXP_SUBSTR", ts(tStr, tStr), []any{"hello", "[0-9]+"}, nil},
		{"UNHEX", ts(tStr), []any{"466C696E6B"}, []byte("Flink")},
		{"UNHEX", ts(tStr), []any{"123"}, []byte{0x01, 0x23}},
		{"UNHEX", ts(tStr), []any{"zz"}, nil},
		{"SHA2", ts(tStr, tInt), []any{"abc", int32(256)}, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"SHA2", ts(tStr, tInt), []any{"abc", int32(100)}, nil},
		{"ENCODE", ts(tStr, tStr), []any{"ab", "UTF-16BE"}, []byte{0, 'a', 0, 'b'}},
		{"DECODE", ts(tBytes, tStr), []any{[]byte{'a', 0, 'b', 0}, "UTF-16LE"}, "ab"},
		{"DECODE", ts(tBytes, tStr), []any{[]byte{0xE9}, "ISO-8859-1"}, "é"},
		{"PARSE_URL", ts(tStr, tStr), []any{"http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1", "HOST"}, "facebook.com"},
		{"PARSE_URL", ts(tStr, tStr, tStr), []any{"http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1", "QUERY", "k2"}, "v2"},
		{"PARSE_URL", ts(tStr, tStr), []any{"http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1", "FILE"}, "/path1/p.php?k1=v1&k2=v2"},
		{"PARSE_URL", ts(tStr, tStr), []any{"http://u:p@facebook.com:80/p#Ref1", "AUTHORITY"}, "u:p@facebook.com:80"},
		{"PARSE_URL", ts(tStr, tStr), []any{"http://facebook.com/p", "REF"}, nil},
		{"STR_TO_MAP", ts(tStr), []any{"a=1,b=2,c"}, m("a", "1", "b", "2", "c", nil)},
		{"STR_TO_MAP", ts(tStr, tStr, tStr), []any{"a:1;b:2;", ";", ":"}, m("a", "1", "b", "2")},
		{"STR_TO_MAP", ts(tStr), []any{""}, m()},
		{"OVERLAY", ts(tStr, tStr, tInt), []any{"xxxxxtest", "xxxx", int64(6)}, "xxxxxxxxx"},
		{"OVERLAY", ts(tStr, tStr, tInt, tInt), []any{"xxxxxtest", "xxxx", int64(6), int64(2)}, "xxxxxxxxxst"},
		{"JSON_QUOTE", ts(tStr), []any{"a\"b/\n\x01"}, `"a\"b\/\n\u0001"`},
		{"JSON_UNQUOTE", ts(tStr), []any{`"a\"b\/\n\u00e9\ud83d\ude00"`}, "a\"b/\né😀"},
		{"JSON_UNQUOTE", ts(tStr), []any{`"a\x"`}, `"a\x"`},
		{"JSON_UNQUOTE", ts(tStr), []any{`abc`}, `abc`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := callFn(t, c.name, c.ts, c.args...)
			require.NoError(t, err)
			require.Equal(t, c.want, got, "%s%v", c.name, c.args)
		})
	}
}

func TestNewBuiltinsTypes(t *testing.T) {
	reg := Builtins()
	infer := func(name string, ts ...types.Type) (types.Type, error) {
		d, ok := reg.Lookup(name)
		require.True(t, ok, name)
		r, _, err := d.Infer(ts)
		return r, err
	}
	r, err := infer("ARRAY_APPEND", types.ArrayOf(types.IntT.WithNullable(false)).WithNullable(false), types.IntT)
	require.NoError(t, err)
	require.Equal(t, "ARRAY<INT> NOT NULL", r.String())
	r, err = infer("SPLIT", tStr, tStr)
	require.NoError(t, err)
	require.Equal(t, "ARRAY<STRING>", r.String())
	r, err = infer("ELT", tInt, types.VarCharOf(3), types.VarCharOf(5))
	require.NoError(t, err)
	require.Equal(t, "VARCHAR(5)", r.String())
	_, err = infer("ELT", tInt, tStr, tBytes)
	require.Error(t, err)
	_, err = infer("ARRAY_MAX", types.ArrayOf(tIntArr))
	require.EqualError(t, err, "Cannot apply 'ARRAY_MAX' to arguments of type 'ARRAY_MAX(<INTEGER ARRAY ARRAY>)'.")
	_, err = infer("STARTSWITH", tStr, tBytes)
	require.Error(t, err)
	r, err = infer("STR_TO_MAP", tStr.WithNullable(false))
	require.NoError(t, err)
	require.Equal(t, "MAP<STRING, STRING> NOT NULL", r.String())
	for _, name := range []string{"ARRAY_APPEND", "ARRAY_PREPEND", "ARRAY_EXCEPT", "ARRAY_INTERSECT", "ARRAY_MAX", "ARRAY_MIN", "ARRAY_SORT", "SPLIT", "MAP_UNION",
		"STARTSWITH", "ENDSWITH", "ELT", "PRINTF", "TRANSLATE", "URL_ENCODE", "URL_DECODE", "REGEXP_COUNT", "REGEXP_EXTRACT_ALL", "REGEXP_INSTR", "REGEXP_SUBSTR",
		"UNHEX", "SHA2", "ENCODE", "DECODE", "PARSE_URL", "STR_TO_MAP", "OVERLAY", "JSON_QUOTE", "JSON_UNQUOTE"} {
		d, ok := reg.Lookup(name)
		require.True(t, ok, name)
		require.NotEmpty(t, d.Doc.Summary, name)
		require.NotEmpty(t, d.Doc.Args, name)
		require.NotEmpty(t, d.Doc.Example, name)
	}
}

func TestSessionFunctions(t *testing.T) {
	reg := Builtins()
	for name, want := range map[string]string{"CURRENT_CATALOG": "cat", "CURRENT_DATABASE": "db"} {
		d, ok := reg.Lookup(name)
		require.True(t, ok)
		r, _, err := d.Infer(nil)
		require.NoError(t, err)
		require.Equal(t, "STRING NOT NULL", r.String())
		got, err := d.Eval(&EvalContext{Catalog: "cat", Database: "db"}, CallTypes{Result: r}, nil)
		require.NoError(t, err)
		require.Equal(t, want, got)
		_, err = d.Eval(&EvalContext{}, CallTypes{Result: r}, nil)
		require.ErrorContains(t, err, "not supported yet: "+name)
	}
}
