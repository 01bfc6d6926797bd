package core

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDescribeDatabase(t *testing.T) {
	tests := []struct {
		name    string
		sql     string
		want    [][]any
		wantErr string
	}{
		{"plain", "DESCRIBE DATABASE d", [][]any{{"name", "d"}, {"catalog", "default_catalog"}, {"comment", "hi"}}, ""},
		{"extended", "DESC DATABASE EXTENDED default_catalog.d", [][]any{{"name", "d"}, {"catalog", "default_catalog"}, {"comment", "hi"}, {"property:k1", "v1"}}, ""},
		{"missing", "DESCRIBE DATABASE nope", nil, "Database nope does not exist in Catalog default_catalog."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			exec(t, e, "CREATE DATABASE d COMMENT 'hi' WITH ('k1' = 'v1')")
			if tt.wantErr != "" {
				_, err := e.ExecuteSQL(context.Background(), tt.sql)
				require.Error(t, err)
				require.True(t, strings.Contains(err.Error(), tt.wantErr), err.Error())
				return
			}
			require.Equal(t, tt.want, rows(t, e, tt.sql))
		})
	}
}

func TestExplainChecksConnectorOptions(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE TABLE g (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1', 'scan.startup.mode' = 'x')")
	_, err := e.ExecuteSQL(context.Background(), "EXPLAIN SELECT * FROM g")
	require.Error(t, err)
	require.Contains(t, err.Error(), "Unsupported options found for 'datagen'.")
}
