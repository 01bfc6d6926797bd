package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFileCatalogUnreadableFiles damages each kind of metadata file of a
// tablerun_file catalog and checks that every statement that reads it fails
// with the same error naming the file (never "does not exist", never a
// silent success).
func TestFileCatalogUnreadableFiles(t *testing.T) {
	for _, damage := range []struct {
		name string
		data []byte
	}{{"empty", nil}, {"garbage", []byte("{\"comm")}, {"not an object", []byte("[1,2]")}} {
		for _, file := range []string{"database.json", "objects/t.json", "functions/f.json"} {
			t.Run(damage.name+"/"+file, func(t *testing.T) {
				dir := t.TempDir()
				e := newEnv(t)
				exec(t, e, fmt.Sprintf("CREATE CATALOG fc WITH ('type' = 'tablerun_file', 'path' = '%s')", dir))
				exec(t, e, "CREATE DATABASE fc.db1")
				exec(t, e, "CREATE TABLE fc.db1.t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
				exec(t, e, "CREATE VIEW fc.db1.v AS SELECT 1 AS x")
				exec(t, e, "CREATE FUNCTION fc.db1.f AS 'LowerUDF' USING JAR '/x/udf.jar'")
				p := filepath.Join(dir, "db1", filepath.FromSlash(file))
				require.FileExists(t, p)
				require.NoError(t, os.WriteFile(p, damage.data, 0o644))
				want := "Catalog fc cannot read its metadata file " + p
				stmts := []string{"SELECT * FROM fc.db1.t", "DESCRIBE fc.db1.t", "SHOW CREATE TABLE fc.db1.t"}
				if file == "database.json" {
					stmts = append(stmts, "SHOW DATABASES IN fc", "SHOW TABLES IN fc.db1", "SHOW VIEWS IN fc.db1",
						"SELECT * FROM fc.db1.v", "USE fc.db1", "DESCRIBE DATABASE fc.db1", "SHOW FUNCTIONS IN fc.db1",
						"CREATE TABLE fc.db1.t2 (a INT)", "DROP DATABASE fc.db1 CASCADE")
				} else if file == "functions/f.json" {
					stmts = []string{"DESCRIBE FUNCTION fc.db1.f", "SELECT fc.db1.f(1)", "DROP FUNCTION fc.db1.f"}
				} else {
					stmts = append(stmts, "SHOW VIEWS IN fc.db1", "DROP TABLE fc.db1.t", "ALTER TABLE fc.db1.t RENAME TO t3")
				}
				for _, s := range stmts {
					_, err := e.ExecuteSQL(context.Background(), s)
					require.Error(t, err, s)
					require.Contains(t, err.Error(), want, s)
				}
			})
		}
	}
}
