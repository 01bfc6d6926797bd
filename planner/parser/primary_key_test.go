package parser

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDuplicatePrimaryKey checks Flink's error for a second primary key in
// CREATE TABLE and in ALTER TABLE ADD, whether column- or table-level.
func TestDuplicatePrimaryKey(t *testing.T) {
	for _, sql := range []string{
		"CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)",
		"CREATE TABLE t (PRIMARY KEY (a) NOT ENFORCED, a INT PRIMARY KEY NOT ENFORCED)",
		"ALTER TABLE t ADD (a INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)",
	} {
		_, err := ParseStatement(sql)
		require.ErrorContains(t, err, "Duplicate primary key definition at line 1", sql)
	}
	_, err := ParseStatement("CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED)")
	require.NoError(t, err)
}
