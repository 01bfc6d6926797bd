package duckdb

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tempDir != "" {
		_ = os.RemoveAll(tempDir)
	}
	os.Exit(code)
}
