package logical_test

import (
	"testing"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// arr builds ARRAY[args…] as the validator types it.
func arr(args ...any) logical.Expr {
	e, err := tryCall("$ARRAY", args...)
	if err != nil {
		panic(err)
	}
	return e
}

// mp builds MAP[k1, v1, …].
func mp(args ...any) logical.Expr {
	e, err := tryCall("$MAP", args...)
	if err != nil {
		panic(err)
	}
	return e
}

// nullArr is a NULL of type ARRAY<INT>.
func nullArr() logical.Expr { return typed(nil, types.ArrayOf(types.IntT)) }

func TestEvalCollections(t *testing.T) {
	cases := []evalCase{
		c("element one", "7", "ELEMENT", arr(7)),
		c("element null array", "NULL", "ELEMENT", nullArr()),
		c("element null elem", "NULL", "ELEMENT", arr(typed(nil, types.IntT))),
		cErr("element many", "more than one element", "ELEMENT", arr(1, 2)),
		cErr("element not array", "Cannot apply 'ELEMENT'", "ELEMENT", 1),

		cT("contains", "TRUE", "BOOLEAN NOT NULL", "ARRAY_CONTAINS", arr(1, 2, 3), 2),
		c("contains absent", "FALSE", "ARRAY_CONTAINS", arr(1, 2, 3), 5),
		c("contains null needle", "TRUE", "ARRAY_CONTAINS", arr(1, nil), nil),
		c("contains null needle absent", "FALSE", "ARRAY_CONTAINS", arr(1, 2), nil),
		c("contains null array", "NULL", "ARRAY_CONTAINS", nullArr(), 1),
		c("contains widened needle", "TRUE", "ARRAY_CONTAINS", arr(int64(1), int64(2)), 2),
		c("contains strings", "TRUE", "ARRAY_CONTAINS", arr("a", "bb"), "bb"),
		cErr("contains bad needle", "Cannot apply 'ARRAY_CONTAINS'", "ARRAY_CONTAINS", arr(1, 2), true),

		c("distinct", "[1, 2, NULL]", "ARRAY_DISTINCT", arr(1, 2, 1, nil, 2, nil)),
		c("distinct null", "NULL", "ARRAY_DISTINCT", nullArr()),

		cT("position", "2", "INT NOT NULL", "ARRAY_POSITION", arr(5, 6, 5), 6),
		c("position absent", "0", "ARRAY_POSITION", arr(5, 6), 9),
		c("position null needle", "NULL", "ARRAY_POSITION", arr(5, nil), nil),
		c("position null array", "NULL", "ARRAY_POSITION", nullArr(), 1),

		c("remove", "[2, 3]", "ARRAY_REMOVE", arr(1, 2, 1, 3), 1),
		c("remove null", "[1]", "ARRAY_REMOVE", arr(nil, 1, nil), nil),
		c("remove null array", "NULL", "ARRAY_REMOVE", nullArr(), 1),

		c("reverse", "[3, NULL, 1]", "ARRAY_REVERSE", arr(1, nil, 3)),
		c("reverse null", "NULL", "ARRAY_REVERSE", nullArr()),

		c("slice", "[2, 3]", "ARRAY_SLICE", arr(1, 2, 3, 4), 2, 3),
		c("slice negative", "[2, 3]", "ARRAY_SLICE", arr(1, 2, 3, 4), 2, -2),
		c("slice zero start", "[1, 2]", "ARRAY_SLICE", arr(1, 2, 3, 4), 0, 2),
		c("slice to end", "[3, 4]", "ARRAY_SLICE", arr(1, 2, 3, 4), 3),
		c("slice empty", "[]", "ARRAY_SLICE", arr(1, 2, 3, 4), 3, 2),
		c("slice out of range", "[]", "ARRAY_SLICE", arr(1, 2), 5, 9),
		c("slice clamps", "[1, 2]", "ARRAY_SLICE", arr(1, 2), -9, 9),
		c("slice null offset", "NULL", "ARRAY_SLICE", arr(1, 2), typed(nil, types.IntT)),

		c("union", "[1, 2, 3]", "ARRAY_UNION", arr(1, 2, 1), arr(2, 3)),
		c("union null", "NULL", "ARRAY_UNION", arr(1), nullArr()),
		cErr("union bad", "Cannot apply 'ARRAY_UNION'", "ARRAY_UNION", arr(1), 1),

		c("concat", "[1, 2, 2, 3]", "ARRAY_CONCAT", arr(1, 2), arr(2, 3)),
		c("concat one", "[1]", "ARRAY_CONCAT", arr(1)),
		c("concat widens", "[1, 2]", "ARRAY_CONCAT", arr(1), arr(int64(2))),
		c("concat null", "NULL", "ARRAY_CONCAT", arr(1), nullArr()),

		c("join", "a,b", "ARRAY_JOIN", arr("a", "b"), ","),
		c("join skips nulls", "a-b", "ARRAY_JOIN", arr("a", nil, "b"), "-"),
		c("join replaces nulls", "a-?-b", "ARRAY_JOIN", arr("a", nil, "b"), "-", "?"),
		c("join null delimiter", "NULL", "ARRAY_JOIN", arr("a"), typed(nil, types.StringT)),
		c("join null replacement", "NULL", "ARRAY_JOIN", arr("a"), ",", typed(nil, types.StringT)),
		cErr("join ints", "Cannot apply 'ARRAY_JOIN'", "ARRAY_JOIN", arr(1), ","),

		c("map keys", "[a, b]", "MAP_KEYS", mp("a", 1, "b", 2)),
		c("map values", "[1, 2]", "MAP_VALUES", mp("a", 1, "b", 2)),
		c("map entries", "[(a, 1), (b, 2)]", "MAP_ENTRIES", mp("a", 1, "b", 2)),
		c("map keys null", "NULL", "MAP_KEYS", typed(nil, types.MapOf(types.StringT, types.IntT))),
		cErr("map keys of array", "Cannot apply 'MAP_KEYS'", "MAP_KEYS", arr(1)),

		c("from arrays", "{a=1, b=2}", "MAP_FROM_ARRAYS", arr("a", "b"), arr(1, 2)),
		c("from arrays duplicate", "{a=3, b=2}", "MAP_FROM_ARRAYS", arr("a", "b", "a"), arr(1, 2, 3)),
		c("from arrays null", "NULL", "MAP_FROM_ARRAYS", arr("a"), nullArr()),
		cErr("from arrays lengths", "is not equal to the length", "MAP_FROM_ARRAYS", arr("a"), arr(1, 2)),
	}
	runCases(t, cases)
}
