package parser

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExpectingLists(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want []string
	}{
		{"catalog name then", "create catalog invalid.cat with ('type'='generic_in_memory')",
			[]string{"<EOF> ", `"WITH" ...`, `"COMMENT" ...`, `";" ...`}},
		{"identifier", "LOAD MODULE 'dummy'", []string{
			"<BRACKET_QUOTED_IDENTIFIER> ...", "<QUOTED_IDENTIFIER> ...", "<BACK_QUOTED_IDENTIFIER> ...",
			"<BIG_QUERY_BACK_QUOTED_IDENTIFIER> ...", "<HYPHENATED_IDENTIFIER> ...", "<IDENTIFIER> ...",
			"<UNICODE_QUOTED_IDENTIFIER> ..."}},
		{"partition column list", "CREATE TABLE t (a INT) PARTITIONED BY (a STRING) WITH ()",
			[]string{`")" ...`, `"," ...`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseStatement(tt.sql)
			var pe *Error
			require.True(t, errors.As(err, &pe), "%v", err)
			require.Equal(t, tt.want, pe.Expecting)
		})
	}
}

func TestParsesOptionalCatalogOptionsAndMaxLengths(t *testing.T) {
	for _, sql := range []string{
		"CREATE CATALOG c",
		"CREATE CATALOG c COMMENT 'x'",
		"CREATE TABLE t (a VARCHAR(2147483647), b VARBINARY(2147483647)) WITH ('connector' = 'datagen')",
	} {
		_, err := ParseStatement(sql)
		require.NoError(t, err, sql)
	}
	_, err := ParseStatement("CREATE TABLE t (a VARCHAR(2147483648)) WITH ()")
	require.ErrorContains(t, err, "Numeric literal '2147483648' out of range")
}
