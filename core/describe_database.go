package core

import (
	"sort"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
)

// describeDatabase builds DESCRIBE DATABASE [EXTENDED] [catalog.]db in the
// layout of Flink's DESCRIBE CATALOG (Flink's own dialect has no DESCRIBE
// DATABASE): rows name, catalog and comment, and with EXTENDED one
// property:<key> row per database property, sorted by key.
func (e *TableEnvironment) describeDatabase(s *ast.DescribeDatabase) (*TableResult, error) {
	c, catName, db, err := e.databaseTarget(s.Name)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	d, err := c.GetDatabase(db)
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	res := &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "info name", Type: types.StringT}, {Name: "info value", Type: types.StringT},
	}}
	res.rows = [][]any{{"name", db}, {"catalog", catName}, {"comment", d.Comment}}
	if s.Extended {
		keys := make([]string, 0, len(d.Properties))
		for k := range d.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			res.rows = append(res.rows, []any{"property:" + k, d.Properties[k]})
		}
	}
	return res, nil
}
