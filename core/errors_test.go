package core

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/planner/parser"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		name  string
		kind  ErrorKind
		err   error
		class string
		msg   string
	}{
		{"parse", KindParse, &parser.Error{Line: 1, Col: 8, Msg: `Encountered "FROM" at line 1, column 8.`, Expecting: []string{`")" ...`}},
			ClassParse, "Encountered \"FROM\" at line 1, column 8.\nWas expecting one of:\n    \")\" ..."},
		{"parser unsupported", KindParse, &parser.Error{Msg: "not supported yet: X", Unsupported: true}, ClassTable, "not supported yet: X"},
		{"config", KindValidation, &config.ValueError{Class: "java.lang.IllegalArgumentException", Msg: "bad"}, "java.lang.IllegalArgumentException", "bad"},
		{"unsupported", KindValidation, fmt.Errorf("not supported yet: Y"), ClassTable, "not supported yet: Y"},
		{"table exists", KindCatalog, catalog.TableAlreadyExist("c", "db", "t"), ClassTableExists, "Table (or view) db.t already exists in Catalog c."},
		{"db exists", KindCatalog, fmt.Errorf("wrapped: %w", catalog.DatabaseAlreadyExist("c", "d")), ClassDatabaseExists, "wrapped: Database d already exists in Catalog c."},
		{"db not empty", KindValidation, catalog.DatabaseNotEmpty("c", "d"), ClassDatabaseNotEmpty, "Database d in catalog c is not empty."},
		{"catalog", KindValidation, catalog.CatalogException("A catalog with name [x] does not exist."), ClassCatalog, "A catalog with name [x] does not exist."},
		{"validation", KindValidation, errors.New("Column 'x' not found"), ClassValidation, "Column 'x' not found"},
		{"planner", KindPlanner, errors.New("boom"), ClassTable, "boom"},
		{"runtime", KindExecution, errors.New("boom"), ClassRuntime, "boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := classify(c.kind, c.err)
			require.Equal(t, c.class, e.Class)
			require.Equal(t, c.msg, e.Error())
			require.Equal(t, c.class+": "+c.msg, Reason(e))
			require.Same(t, e, classify(KindExecution, e), "classifying twice keeps the first decision")
		})
	}
	require.True(t, errors.Is(unsupported("x"), ErrNotSupported))
}

func TestShiftPosition(t *testing.T) {
	pe := &parser.Error{Line: 1, Col: 8, Msg: `Encountered "FROM" at line 1, column 8.`}
	err := ShiftPosition(classify(KindParse, pe), 10, 3)
	require.Equal(t, ClassParse+`: Encountered "FROM" at line 10, column 10.`, Reason(err))
	pe2 := &parser.Error{Line: 2, Col: 4, Msg: `Encountered "x" at line 2, column 4.`}
	require.Equal(t, ClassParse+`: Encountered "x" at line 11, column 4.`, Reason(ShiftPosition(pe2, 10, 3)))
	other := errors.New("x")
	require.Same(t, other, ShiftPosition(other, 3, 3))
}

func TestRecovered(t *testing.T) {
	e := recovered("boom")
	require.ErrorIs(t, e, ErrInternal)
	require.Equal(t, KindInternal, e.Kind)
	require.Contains(t, e.Error(), "boom")
	require.NotEmpty(t, e.Stack)
}
