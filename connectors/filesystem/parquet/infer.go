package parquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/tablerun/tablerun/core/types"
)

// FileSchema returns the columns of a Parquet file as tablerun types
// (a table declared without columns, connectors/filesystem/infer.go):
// the file's Parquet schema through pqarrow's mapping (the Arrow schema a
// writer may have stored in the metadata is ignored, so the types are
// those of the Parquet logical types: INT96 — how Flink writes TIMESTAMP
// by default — is TIMESTAMP(9), a timestamp adjusted to UTC
// TIMESTAMP_LTZ).
func FileSchema(r pq.ReaderAtSeeker, name string) (types.Schema, error) {
	pf, err := file.NewParquetReader(r, file.WithReadProps(pq.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer pf.Close()
	as, err := pqarrow.FromParquet(pf.MetaData().Schema, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the schema of %s: %w", name, err)
	}
	root := pf.MetaData().Schema.Root()
	out := make(types.Schema, 0, as.NumFields())
	for i, f := range as.Fields() {
		t, err := types.FromArrow(f.Type, f.Nullable)
		if err != nil {
			return nil, fmt.Errorf("column '%s' of %s: %w", f.Name, name, err)
		}
		if i < root.NumFields() {
			if p, ok := root.Field(i).(*schema.PrimitiveNode); ok && p.PhysicalType() == pq.Types.Int96 {
				// pqarrow reads INT96 as an instant; Flink writes its
				// TIMESTAMP(p) columns as INT96 by default
				t = types.TimestampOf(9).WithNullable(t.Nullable())
			}
		}
		out = append(out, types.Field{Name: f.Name, Type: t})
	}
	return out, nil
}
