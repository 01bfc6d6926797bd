package logical_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

type evalCase struct {
	name    string
	e       func(t testing.TB) logical.Expr
	want    string
	wantErr string
	typ     string // optional expected result type
}

func c(name string, want string, fn string, args ...any) evalCase {
	return evalCase{name: name, want: want, e: func(t testing.TB) logical.Expr { return mkCall(t, fn, args...) }}
}

func cT(name, want, typ string, fn string, args ...any) evalCase {
	ec := c(name, want, fn, args...)
	ec.typ = typ
	return ec
}

func cErr(name, wantErr string, fn string, args ...any) evalCase {
	return evalCase{name: name, wantErr: wantErr, e: func(t testing.TB) logical.Expr {
		e, err := tryCall(fn, args...)
		if err != nil {
			// A validation error: check it here.
			require.Contains(t, err.Error(), wantErr)
			return nil
		}
		return e
	}}
}

func runCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e(t)
			if e == nil {
				return
			}
			if tc.typ != "" {
				require.Equal(t, tc.typ, e.Type().String())
			}
			got, err := show(t, e)
			if tc.wantErr != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestEvalArithmetic(t *testing.T) {
	runCases(t, []evalCase{
		cT("int plus", "3", "INT NOT NULL", "+", 1, 2),
		cT("tinyint plus int", "3", "INT NOT NULL", "+", int8(1), 2),
		cT("int plus bigint", "3", "BIGINT NOT NULL", "+", 1, int64(2)),
		cT("int overflow wraps", "-2147483648", "INT NOT NULL", "+", int32(math.MaxInt32), 1),
		cT("int minus", "-1", "INT NOT NULL", "-", 1, 2),
		cT("int times", "6", "INT NOT NULL", "*", 2, 3),
		cT("int div truncates", "3", "INT NOT NULL", "/", 7, 2),
		cT("negative int div", "-3", "INT NOT NULL", "/", -7, 2),
		cErr("int div zero", "/ by zero", "/", 7, 0),
		cErr("mod zero", "/ by zero", "MOD", 7, 0),
		cT("mod", "1", "INT NOT NULL", "MOD", 7, 3),
		cT("mod negative", "-1", "INT NOT NULL", "MOD", -7, 3),
		cT("double plus int", "3.5", "DOUBLE NOT NULL", "+", 1.5, 2),
		cT("float plus int", "3.5", "FLOAT NOT NULL", "+", float32(1.5), 2),
		c("double div zero", "Infinity", "/", 1.0, 0.0),
		c("double zero div zero", "NaN", "/", 0.0, 0.0),
		c("double mod", "1.5", "MOD", 7.5, 3.0),
		cT("decimal plus", "3.75", "DECIMAL(4, 2) NOT NULL", "+", dec("1.25", 3, 2), dec("2.5", 2, 1)),
		cT("decimal plus int", "3.25", "DECIMAL(13, 2) NOT NULL", "+", dec("1.25", 3, 2), 2),
		cT("decimal minus", "-1.25", "DECIMAL(4, 2) NOT NULL", "-", dec("1.25", 3, 2), dec("2.5", 2, 1)),
		cT("decimal times", "3.125", "DECIMAL(6, 3) NOT NULL", "*", dec("1.25", 3, 2), dec("2.5", 2, 1)),
		cT("decimal div", "0.333333", "DECIMAL(7, 6) NOT NULL", "/", dec("1", 1, 0), dec("3", 1, 0)),
		cT("decimal div scale", "0.500000", "DECIMAL(9, 6) NOT NULL", "/", dec("1.00", 3, 2), dec("2.00", 3, 2)),
		cT("decimal div rounds half up", "0.666667", "DECIMAL(7, 6) NOT NULL", "/", dec("2", 1, 0), dec("3", 1, 0)),
		cErr("decimal div zero", "Division by zero", "/", dec("2", 1, 0), dec("0", 1, 0)),
		cT("decimal mod", "1.5", "DECIMAL(2, 1) NOT NULL", "MOD", dec("7.5", 2, 1), dec("3", 1, 0)),
		cT("decimal times double", "3.75", "DOUBLE NOT NULL", "*", dec("1.5", 2, 1), 2.5),
		cT("decimal cap 38", "2.00", "DECIMAL(38, 2) NOT NULL", "+", dec("1.00", 38, 2), dec("1.00", 38, 2)),
		c("null plus", "NULL", "+", nil, 1),
		cT("negate", "-5", "INT NOT NULL", "NEGATE", 5),
		c("negate double", "-1.5", "NEGATE", 1.5),
		c("negate decimal", "-1.25", "NEGATE", dec("1.25", 3, 2)),
		c("timestamp plus interval", "2024-01-02 00:00:01.000", "+", ts("2024-01-01 00:00:01", 3), intervalDT(86_400_000)),
		c("interval plus timestamp", "2024-01-02 00:00:01.000", "+", intervalDT(86_400_000), ts("2024-01-01 00:00:01", 3)),
		c("timestamp minus interval", "2023-12-31 00:00:01.000", "-", ts("2024-01-01 00:00:01", 3), intervalDT(86_400_000)),
		c("timestamp plus months clamps", "2024-02-29 10:00:00.000", "+", ts("2024-01-31 10:00:00", 3), intervalYM(1)),
		c("date plus days", "2024-03-01", "+", date("2024-02-29"), intervalDT(86_400_000)),
		c("date minus year", "2023-02-28", "-", date("2024-02-29"), intervalYM(12)),
		c("interval times int", "+2 00:00:00.000", "*", intervalDT(86_400_000), 2),
		c("interval plus interval", "+1-02", "+", intervalYM(12), intervalYM(2)),
		cErr("string plus int", "Cannot apply '+' to arguments of type '+(<CHAR(1)>, <INTEGER>)'", "+", "a", 1),
	})
}

func TestEvalComparison(t *testing.T) {
	runCases(t, []evalCase{
		cT("eq", "TRUE", "BOOLEAN NOT NULL", "=", 1, 1),
		c("eq int bigint", "TRUE", "=", 1, int64(1)),
		c("eq int double", "TRUE", "=", 1, 1.0),
		c("eq int decimal", "TRUE", "=", 2, dec("2.00", 3, 2)),
		c("neq", "TRUE", "<>", 1, 2),
		c("lt", "TRUE", "<", 1, 2),
		c("le", "TRUE", "<=", 2, 2),
		c("gt", "FALSE", ">", 1, 2),
		c("ge", "TRUE", ">=", 2.5, 2),
		c("null eq", "NULL", "=", nil, 1),
		c("nan eq nan", "FALSE", "=", math.NaN(), math.NaN()),
		c("string lt", "TRUE", "<", "abc", "abd"),
		c("string eq char pad", "TRUE", "=", "a", "a"),
		c("date lt", "TRUE", "<", date("2024-01-01"), date("2024-01-02")),
		c("date vs timestamp", "TRUE", "<", date("2024-01-01"), ts("2024-01-01 00:00:01", 0)),
		c("string vs date", "TRUE", "=", "2024-01-01", date("2024-01-01")),
		c("bool eq", "TRUE", "=", true, true),
		c("bool lt", "TRUE", "<", false, true),
		c("is distinct null null", "FALSE", "IS DISTINCT FROM", nil, nil),
		c("is distinct null 1", "TRUE", "IS DISTINCT FROM", nil, 1),
		c("is distinct 1 1", "FALSE", "IS DISTINCT FROM", 1, 1),
		c("is not distinct null null", "TRUE", "IS NOT DISTINCT FROM", nil, nil),
		c("is not distinct 1 2", "FALSE", "IS NOT DISTINCT FROM", 1, 2),
		cErr("int vs bool", "Cannot apply '='", "=", 1, true),
		cErr("string vs int", "Cannot apply '='", "=", "1", 1),
	})
}

func TestEvalLogic(t *testing.T) {
	N := typed(nil, types.BooleanT)
	runCases(t, []evalCase{
		c("and tt", "TRUE", "AND", true, true),
		c("and tf", "FALSE", "AND", true, false),
		c("and fn", "FALSE", "AND", false, N),
		c("and nf", "FALSE", "AND", N, false),
		c("and tn", "NULL", "AND", true, N),
		c("or tn", "TRUE", "OR", true, N),
		c("or nt", "TRUE", "OR", N, true),
		c("or fn", "NULL", "OR", false, N),
		c("or ff", "FALSE", "OR", false, false),
		c("not t", "FALSE", "NOT", true),
		c("not n", "NULL", "NOT", N),
		c("is null", "TRUE", "IS NULL", nil),
		c("is null 1", "FALSE", "IS NULL", 1),
		c("is not null", "TRUE", "IS NOT NULL", 1),
		c("is true", "TRUE", "IS TRUE", true),
		c("is true null", "FALSE", "IS TRUE", N),
		c("is not true null", "TRUE", "IS NOT TRUE", N),
		c("is false", "TRUE", "IS FALSE", false),
		c("is false null", "FALSE", "IS FALSE", N),
		c("is not false null", "TRUE", "IS NOT FALSE", N),
		{name: "and short circuit", want: "FALSE", e: func(t testing.TB) logical.Expr {
			return mkCall(t, "AND", false, mkCall(t, "=", mkCall(t, "/", 1, 0), 1))
		}},
		{name: "or short circuit", want: "TRUE", e: func(t testing.TB) logical.Expr {
			return mkCall(t, "OR", true, mkCall(t, "=", mkCall(t, "/", 1, 0), 1))
		}},
	})
}

func TestEvalLikeInConcat(t *testing.T) {
	runCases(t, []evalCase{
		c("like prefix", "TRUE", "LIKE", "abc", "a%"),
		c("like suffix", "TRUE", "LIKE", "abc", "%c"),
		c("like contains", "TRUE", "LIKE", "abc", "%b%"),
		c("like exact", "FALSE", "LIKE", "abc", "ab"),
		c("like underscore", "TRUE", "LIKE", "abc", "a_c"),
		c("like general", "TRUE", "LIKE", "abcdef", "a%c_e%"),
		c("like general miss", "FALSE", "LIKE", "abcdef", "a%x_e%"),
		c("like unicode underscore", "TRUE", "LIKE", "añb", "a_b"),
		c("like escape", "TRUE", "LIKE", "a%b", "a\\%b", "\\"),
		c("like escape miss", "FALSE", "LIKE", "axb", "a\\%b", "\\"),
		c("like null", "NULL", "LIKE", nil, "a"),
		c("like regex chars literal", "TRUE", "LIKE", "a.b", "a.b"),
		cErr("like bad escape", "Invalid escape", "LIKE", "a", "a\\", "\\"),
		c("in hit", "TRUE", "IN", 2, 1, 2, 3),
		c("in miss", "FALSE", "IN", 5, 1, 2, 3),
		c("in miss null", "NULL", "IN", 5, 1, nil),
		c("in hit null", "TRUE", "IN", 1, 1, nil),
		c("in null value", "NULL", "IN", nil, 1, 2),
		c("in strings", "TRUE", "IN", "b", "a", "b"),
		c("in mixed numeric", "TRUE", "IN", 2, int64(1), 2.0),
		cT("concat", "ab", "CHAR(2) NOT NULL", "CONCAT", "a", "b"),
		c("concat null", "NULL", "CONCAT", "a", nil),
		c("concat number", "a1", "CONCAT", "a", 1),
		c("coalesce", "2", "COALESCE", nil, 2, 3),
		cT("coalesce type", "2", "INT NOT NULL", "COALESCE", typed(nil, types.IntT), 2),
		c("coalesce all null", "NULL", "COALESCE", nil, nil),
		{name: "coalesce lazy", want: "1", e: func(t testing.TB) logical.Expr {
			return mkCall(t, "COALESCE", 1, mkCall(t, "/", 1, 0))
		}},
		c("nullif eq", "NULL", "NULLIF", 1, 1),
		c("nullif ne", "1", "NULLIF", 1, 2),
		c("if true", "a", "IF", true, "a", "b"),
		c("if null", "b", "IF", typed(nil, types.BooleanT), "a", "b"),
		c("ifnull", "1", "IFNULL", nil, 1),
		c("greatest", "3", "GREATEST", 1, 3, 2),
		c("greatest null", "NULL", "GREATEST", 1, nil),
		c("least", "1.0", "LEAST", 2, 1.0),
		c("row", "(1, a)", "$ROW", 1, "a"),
		c("array", "[1, 2]", "$ARRAY", 1, 2),
		c("map", "{a=1, b=2}", "$MAP", "a", 1, "b", 2),
		c("item array", "2", "$ITEM", mkCall(t, "$ARRAY", 1, 2), 2),
		c("item array out of range", "NULL", "$ITEM", mkCall(t, "$ARRAY", 1, 2), 3),
		c("item map", "2", "$ITEM", mkCall(t, "$MAP", "a", 1, "b", 2), "b"),
		c("item map missing", "NULL", "$ITEM", mkCall(t, "$MAP", "a", 1), "z"),
		c("field", "a", "$FIELD", mkCall(t, "$ROW", "a", 1), 0),
		c("cardinality", "2", "CARDINALITY", mkCall(t, "$ARRAY", 1, 2)),
		c("typeof", "INT NOT NULL", "TYPEOF", 1),
		c("current_row_timestamp", "FALSE", "IS NULL", mkCall(t, "CURRENT_ROW_TIMESTAMP")),
		c("similar to", "TRUE", "SIMILAR TO", "abc", "a(b|x)%"),
		c("similar to whole string", "FALSE", "SIMILAR TO", "abc", "b"),
		c("similar to escape", "TRUE", "SIMILAR TO", "a%", "a!%", "!"),
		cErr("similar to bad escape", "Invalid escape sequence", "SIMILAR TO", "a", "a!", "!"),
		c("to_base64", "aGVsbG8=", "TO_BASE64", "hello"),
		c("from_base64", "hello", "FROM_BASE64", "aGVsbG8="),
		cErr("from_base64 bad", "illegal base64", "FROM_BASE64", "!!"),
		c("hex int", "11", "HEX", 17),
		c("hex negative", "FFFFFFFFFFFFFFFF", "HEX", -1),
		c("hex string", "6162", "HEX", "ab"),
		c("bin", "100", "BIN", 4),
		c("convert_tz", "1969-12-31 16:00:00", "CONVERT_TZ", "1970-01-01 00:00:00", "UTC", "America/Los_Angeles"),
		c("convert_tz offset", "1970-01-01 08:30:00", "CONVERT_TZ", "1970-01-01 00:00:00", "GMT", "GMT+08:30"),
		cErr("convert_tz bad zone", "Unknown time-zone ID", "CONVERT_TZ", "1970-01-01 00:00:00", "UTC", "Nowhere/Land"),
	})
}

func TestEvalString(t *testing.T) {
	runCases(t, []evalCase{
		cT("upper", "ABC", "CHAR(3) NOT NULL", "UPPER", "abc"),
		c("lower", "abc", "LOWER", "ABC"),
		c("upper null", "NULL", "UPPER", nil),
		c("char_length", "3", "CHAR_LENGTH", "añb"),
		c("character_length", "2", "CHARACTER_LENGTH", "ab"),
		c("trim both", "a", "TRIM", "BOTH", " ", "  a  "),
		c("trim leading", "a  ", "TRIM", "LEADING", " ", "  a  "),
		c("trim trailing chars", "xxa", "TRIM", "TRAILING", "x", "xxaxx"),
		c("ltrim", "a ", "LTRIM", " a "),
		c("rtrim", " a", "RTRIM", " a "),
		c("btrim chars", "a", "BTRIM", "xax", "x"),
		c("substring", "ell", "SUBSTRING", "hello", 2, 3),
		c("substring to end", "llo", "SUBSTRING", "hello", 3),
		c("substring negative", "lo", "SUBSTRING", "hello", -2),
		c("substring zero", "he", "SUBSTRING", "hello", 0, 2),
		c("substring past end", "", "SUBSTRING", "hello", 10),
		c("substr unicode", "ñb", "SUBSTR", "añb", 2),
		c("substring huge length", "ello", "SUBSTRING", "hello", 2, int64(math.MaxInt64)),
		c("substring huge negative", "", "SUBSTRING", "hello", int64(math.MinInt64), 3),
		cErr("substring negative length", "negative length", "SUBSTRING", "hello", 1, -1),
		c("position", "2", "POSITION", "b", "abc"),
		c("position missing", "0", "POSITION", "z", "abc"),
		c("locate from", "4", "LOCATE", "a", "abca", 2),
		c("instr", "3", "INSTR", "abc", "c"),
		c("replace", "aba", "REPLACE", "aXa", "X", "b"),
		c("concat_ws", "a-b", "CONCAT_WS", "-", "a", nil, "b"),
		c("concat_ws null sep", "NULL", "CONCAT_WS", nil, "a"),
		c("lpad", "??hi", "LPAD", "hi", 4, "?"),
		c("lpad truncates", "h", "LPAD", "hi", 1, "?"),
		c("rpad", "hi?!?", "RPAD", "hi", 5, "?!"),
		c("lpad negative", "NULL", "LPAD", "hi", -1, "?"),
		c("repeat", "abab", "REPEAT", "ab", 2),
		c("repeat zero", "", "REPEAT", "ab", 0),
		cErr("repeat huge", "too long", "REPEAT", "ab", int32(math.MaxInt32)),
		c("reverse", "cba", "REVERSE", "abc"),
		c("initcap", "Hello World", "INITCAP", "hello WORLD"),
		c("split_index", "b", "SPLIT_INDEX", "a,b,c", ",", 1),
		c("split_index out", "NULL", "SPLIT_INDEX", "a,b,c", ",", 5),
		c("regexp_replace", "fb", "REGEXP_REPLACE", "foobar", "oo|ar", ""),
		c("regexp_replace group", "b-a", "REGEXP_REPLACE", "a-b", "(\\w)-(\\w)", "$2-$1"),
		c("regexp_extract", "bar", "REGEXP_EXTRACT", "foothebar", "foo(.*?)(bar)", 2),
		c("regexp_extract none", "NULL", "REGEXP_EXTRACT", "x", "y"),
		cErr("regexp bad", "Invalid regular expression", "REGEXP_EXTRACT", "x", "("),
		c("regexp", "TRUE", "REGEXP", "abc", "b"),
		c("left", "ab", "LEFT", "abc", 2),
		c("left negative", "", "LEFT", "abc", -1),
		c("right", "bc", "RIGHT", "abc", 2),
		c("right all", "abc", "RIGHT", "abc", 5),
		c("ascii", "97", "ASCII", "abc"),
		c("ascii empty", "0", "ASCII", ""),
		c("chr", "a", "CHR", 97),
		c("md5", "900150983cd24fb0d6963f7d28e17f72", "MD5", "abc"),
		c("sha1", "a9993e364706816aba3e25717850c26c9cd0d89d", "SHA1", "abc"),
		c("sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "SHA256", "abc"),
		c("sha224", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7", "SHA224", "abc"),
		c("is_alpha", "TRUE", "IS_ALPHA", "abc"),
		c("is_alpha null", "FALSE", "IS_ALPHA", nil),
		c("is_digit", "FALSE", "IS_DIGIT", "12a"),
		c("is_decimal", "TRUE", "IS_DECIMAL", "-1.5"),
		c("is_decimal no", "FALSE", "IS_DECIMAL", "x"),
		c("sha384 length", "TRUE", "=", mkCall(t, "CHAR_LENGTH", mkCall(t, "SHA384", "a")), 96),
		c("sha512 length", "TRUE", "=", mkCall(t, "CHAR_LENGTH", mkCall(t, "SHA512", "a")), 128),
		c("invalid utf8 upper", "\uFFFD", "UPPER", "\xff"),
		c("invalid utf8 length", "1", "CHAR_LENGTH", "\xff"),
		cErr("upper int", "Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'.", "UPPER", 1),
	})
}

func TestEvalMath(t *testing.T) {
	runCases(t, []evalCase{
		c("abs", "2", "ABS", -2),
		c("abs double", "2.5", "ABS", -2.5),
		c("abs decimal", "1.25", "ABS", dec("-1.25", 3, 2)),
		c("ceil", "2.0", "CEIL", 1.2),
		c("ceiling", "-1.0", "CEILING", -1.2),
		cT("ceil decimal", "2", "DECIMAL(2, 0) NOT NULL", "CEIL", dec("1.25", 3, 2)),
		c("floor decimal negative", "-2", "FLOOR", dec("-1.25", 3, 2)),
		c("floor", "1.0", "FLOOR", 1.7),
		c("floor int", "3", "FLOOR", 3),
		c("round", "1.3", "ROUND", 1.25, 1),
		c("round half up double", "1.01", "ROUND", 1.005, 2),
		c("round negative digits", "120", "ROUND", 123, -1),
		c("round int half", "130", "ROUND", 125, -1),
		c("round decimal", "1.30", "ROUND", dec("1.25", 3, 2), 1),
		{name: "round decimal typed by validator", want: "2.35", e: func(t testing.TB) logical.Expr {
			e := mkCall(t, "ROUND", dec("2.345", 4, 3), 2).(*logical.Call)
			e.T = function.RoundDecimalType(e.Args[0].Type(), 2)
			require.Equal(t, "DECIMAL(4, 2) NOT NULL", e.T.String())
			return e
		}},
		cT("round decimal no digits", "2", "DECIMAL(2, 0) NOT NULL", "ROUND", dec("1.50", 3, 2)),
		c("truncate", "1.2", "TRUNCATE", 1.29, 1),
		c("truncate decimal", "-1.20", "TRUNCATE", dec("-1.29", 3, 2), 1),
		c("power", "8.0", "POWER", 2, 3),
		c("pow", "0.5", "POW", 2, -1),
		c("sqrt", "2.0", "SQRT", 4),
		c("sqrt negative", "NaN", "SQRT", -1),
		c("exp", "1.0", "EXP", 0),
		c("ln", "0.0", "LN", 1),
		c("log10", "2.0", "LOG10", 100),
		c("log2", "3.0", "LOG2", 8),
		c("log", "0.0", "LOG", 1),
		c("log base", "3.0", "LOG", 2, 8),
		c("sign", "-1", "SIGN", -5),
		c("sign double", "1.0", "SIGN", 2.5),
		c("sign decimal", "-1.00", "SIGN", dec("-3.50", 3, 2)),
		c("pi", "3.141592653589793", "PI"),
		c("e", "2.718281828459045", "E"),
		c("sin", "0.0", "SIN", 0),
		c("cos", "1.0", "COS", 0),
		c("tan", "0.0", "TAN", 0),
		c("cot", "TRUE", ">", mkCall(t, "COT", 1), 0.64),
		c("asin", "0.0", "ASIN", 0),
		c("acos", "0.0", "ACOS", 1),
		c("atan", "0.0", "ATAN", 0),
		c("atan2", "0.7853981633974483", "ATAN2", 1, 1),
		c("sinh", "0.0", "SINH", 0),
		c("cosh", "1.0", "COSH", 0),
		c("tanh", "0.0", "TANH", 0),
		c("degrees", "180.0", "DEGREES", math.Pi),
		c("radians", "3.141592653589793", "RADIANS", 180),
		c("rand range", "TRUE", "<", mkCall(t, "RAND"), 1.0),
		c("rand seeded repeatable", "TRUE", "=", mkCall(t, "RAND", 42), mkCall(t, "RAND", 42)),
		c("rand_integer", "TRUE", "<", mkCall(t, "RAND_INTEGER", 10), 10),
		c("mod function", "1", "MOD", int64(10), int64(3)),
	})
}

func TestEvalTemporal(t *testing.T) {
	T := ts("2024-02-29 13:45:30.123", 3)
	runCases(t, []evalCase{
		c("extract year", "2024", "EXTRACT", "YEAR", T),
		c("extract month", "2", "EXTRACT", "MONTH", T),
		c("extract day", "29", "EXTRACT", "DAY", T),
		c("extract hour", "13", "EXTRACT", "HOUR", T),
		c("extract minute", "45", "EXTRACT", "MINUTE", T),
		c("extract second", "30", "EXTRACT", "SECOND", T),
		c("extract millisecond", "123", "EXTRACT", "MILLISECOND", T), // within the second, as Flink
		c("extract dow", "5", "EXTRACT", "DOW", T),
		c("extract doy", "60", "EXTRACT", "DOY", T),
		c("extract quarter", "1", "EXTRACT", "QUARTER", T),
		c("extract week", "9", "EXTRACT", "WEEK", T),
		c("extract century", "21", "EXTRACT", "CENTURY", T),
		c("extract from date", "2024", "EXTRACT", "YEAR", date("2024-05-01")),
		c("extract from interval", "2", "EXTRACT", "DAY", intervalDT(2*86_400_000+5)),
		c("year", "2024", "YEAR", T),
		c("quarter", "1", "QUARTER", T),
		c("month", "2", "MONTH", T),
		c("week", "9", "WEEK", T),
		c("dayofyear", "60", "DAYOFYEAR", T),
		c("dayofmonth", "29", "DAYOFMONTH", T),
		c("dayofweek", "5", "DAYOFWEEK", T),
		c("hour", "13", "HOUR", T),
		c("minute", "45", "MINUTE", T),
		c("second", "30", "SECOND", T),
		c("date_format", "2024/02/29 13:45:30.123", "DATE_FORMAT", T, "yyyy/MM/dd HH:mm:ss.SSS"),
		c("date_format string", "29-02-24", "DATE_FORMAT", "2024-02-29 01:02:03", "dd-MM-yy"),
		c("date_format literal", "2024 T 1 PM", "DATE_FORMAT", T, "yyyy 'T' h a"),
		c("to_date", "2024-02-29", "TO_DATE", "2024-02-29"),
		c("to_date format", "2024-02-29", "TO_DATE", "29/02/2024", "dd/MM/yyyy"),
		c("to_date bad", "NULL", "TO_DATE", "nope"),
		c("to_timestamp", "2024-02-29 13:45:30.000", "TO_TIMESTAMP", "2024-02-29 13:45:30"),
		c("to_timestamp format", "2024-02-29 13:45:00.000", "TO_TIMESTAMP", "2024/02/29 13:45", "yyyy/MM/dd HH:mm"),
		c("to_timestamp bad", "NULL", "TO_TIMESTAMP", "2024-13-01 00:00:00"),
		// Session zone is UTC+8.
		c("to_timestamp_ltz seconds", "1970-01-01 08:00:01.000", "TO_TIMESTAMP_LTZ", int64(1), 0),
		c("to_timestamp_ltz millis", "1970-01-01 08:00:01.500", "TO_TIMESTAMP_LTZ", int64(1500), 3),
		cErr("to_timestamp_ltz bad precision", "unsupported", "TO_TIMESTAMP_LTZ", int64(1500), 5),
		c("from_unixtime", "1970-01-01 08:00:00", "FROM_UNIXTIME", 0),
		c("from_unixtime format", "1970", "FROM_UNIXTIME", int64(0), "yyyy"),
		c("unix_timestamp string", "1", "UNIX_TIMESTAMP", "1970-01-01 08:00:01"),
		c("unix_timestamp now", "1710464523", "UNIX_TIMESTAMP"),
		c("current_timestamp", "2024-03-15 09:02:03.456", "CURRENT_TIMESTAMP"),
		c("now", "2024-03-15 09:02:03.456", "NOW"),
		c("localtimestamp", "2024-03-15 09:02:03.456", "LOCALTIMESTAMP"),
		c("current_date", "2024-03-15", "CURRENT_DATE"),
		c("current_time", "09:02:03", "CURRENT_TIME"),
		c("localtime", "09:02:03", "LOCALTIME"),
		c("timestampadd day", "2024-03-01", "TIMESTAMPADD", "DAY", 1, date("2024-02-29")),
		c("timestampadd month", "2024-02-29 13:45:30.123", "TIMESTAMPADD", "MONTH", 1, ts("2024-01-31 13:45:30.123", 3)),
		c("timestampadd hour", "2024-02-29 14:45:30.123", "TIMESTAMPADD", "HOUR", 1, T),
		c("timestampdiff day", "2", "TIMESTAMPDIFF", "DAY", date("2024-01-01"), date("2024-01-03")),
		c("timestampdiff month", "1", "TIMESTAMPDIFF", "MONTH", date("2024-01-31"), date("2024-02-29")),
		c("timestampdiff month partial", "0", "TIMESTAMPDIFF", "MONTH", date("2024-01-15"), date("2024-02-14")),
		c("timestampdiff year negative", "-1", "TIMESTAMPDIFF", "YEAR", date("2024-01-01"), date("2023-01-01")),
		c("timestampdiff second", "-30", "TIMESTAMPDIFF", "SECOND", ts("2024-01-01 00:00:30", 0), ts("2024-01-01 00:00:00", 0)),
	})
}

func TestEvalMisc(t *testing.T) {
	fl, err := tryCall("FLOOR", ts("2024-02-29 13:45:30.123", 3), "DAY")
	require.NoError(t, err)
	fv, err := logical.Eval(testCtx, reg, fl, nil)
	require.NoError(t, err)
	require.Equal(t, ts("2024-02-29 00:00:00", 3).(*logical.Literal).Value, fv)

	e := mkCall(t, "UUID")
	v, err := logical.Eval(testCtx, reg, e, nil)
	require.NoError(t, err)
	require.Len(t, v.(string), 36)
	require.Equal(t, byte('4'), v.(string)[14])
	d, _ := reg.Lookup("UUID")
	require.True(t, d.Nondeterministic)
}

func TestEvalCaseAndCast(t *testing.T) {
	x := &logical.ColumnRef{Index: 0, T: types.IntT}
	div := mkCall(t, "/", 10, x)
	cse := &logical.Case{
		Whens: []logical.When{{Cond: mkCall(t, "<>", x, 0), Then: div}},
		Else:  lit(-1),
		T:     types.IntT,
	}
	for _, tc := range []struct {
		in   any
		want any
	}{{int32(2), int32(5)}, {int32(0), int32(-1)}, {nil, int32(-1)}} {
		got, err := logical.Eval(testCtx, reg, cse, []any{tc.in})
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	noElse := &logical.Case{Whens: []logical.When{{Cond: lit(false), Then: lit(1)}}, T: types.IntT}
	got, err := logical.Eval(testCtx, reg, noElse, nil)
	require.NoError(t, err)
	require.Nil(t, got)

	_, err = logical.Eval(testCtx, reg, castE("abc", types.IntT), nil)
	require.ErrorContains(t, err, "For input string: 'abc'")
	var ee *function.EvalError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, "java.lang.NumberFormatException", ee.JavaClass())
	got, err = logical.Eval(testCtx, reg, &logical.Cast{Arg: lit("abc"), T: types.IntT, Try: true}, nil)
	require.NoError(t, err)
	require.Nil(t, got)
	got, err = logical.Eval(testCtx, reg, castE(" 42 ", types.IntT), nil)
	require.NoError(t, err)
	require.Equal(t, int32(42), got)

	_, err = logical.Eval(testCtx, reg, &logical.ColumnRef{Index: 3, T: types.IntT}, []any{1})
	require.Error(t, err)
	_, err = logical.Eval(testCtx, reg, &logical.Call{Name: "NO_SUCH", T: types.IntT}, nil)
	require.ErrorContains(t, err, "No match found")
}

// TestEveryBuiltinTested makes sure every registered function appears in a
// test case above (by name).
func TestEveryBuiltinHasDoc(t *testing.T) {
	for _, n := range reg.Names() {
		d, ok := reg.Lookup(n)
		require.True(t, ok)
		require.NotEmpty(t, d.Doc.Summary, n)
		require.NotNil(t, d.Infer, n)
		require.NotNil(t, d.Eval, n)
	}
}
