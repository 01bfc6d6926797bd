package flightsql

import (
	"context"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tablerun/tablerun/core"
)

// Table types of GetTables: Flink's catalogs hold tables and views.
const (
	tableTypeTable = "TABLE"
	tableTypeView  = "VIEW"
)

// registerSQLInfo declares what GetSqlInfo reports.
func (s *Server) registerSQLInfo() error {
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	infos := []struct {
		id flightsql.SqlInfo
		v  any
	}{
		{flightsql.SqlInfoFlightSqlServerName, "tablerun"},
		{flightsql.SqlInfoFlightSqlServerVersion, version},
		{flightsql.SqlInfoFlightSqlServerArrowVersion, arrowVersion},
		{flightsql.SqlInfoFlightSqlServerReadOnly, false},
		{flightsql.SqlInfoFlightSqlServerSql, true},
		{flightsql.SqlInfoFlightSqlServerSubstrait, false},
		{flightsql.SqlInfoFlightSqlServerTransaction, int32(flightsql.SqlTransactionNone)},
		{flightsql.SqlInfoFlightSqlServerCancel, true},
		{flightsql.SqlInfoFlightSqlServerBulkIngestion, true},
		{flightsql.SqlInfoFlightSqlServerStatementTimeout, int32(0)},
		{flightsql.SqlInfoTransactionsSupported, false},
		{flightsql.SqlInfoDDLCatalog, true},
		{flightsql.SqlInfoDDLSchema, true},
		{flightsql.SqlInfoDDLTable, true},
		{flightsql.SqlInfoIdentifierQuoteChar, "`"},
		{flightsql.SqlInfoIdentifierCase, int64(flightsql.SqlCaseSensitivityCaseInsensitive)},
		{flightsql.SqlInfoQuotedIdentifierCase, int64(flightsql.SqlCaseSensitivityCaseInsensitive)},
		{flightsql.SqlInfoAllTablesAreASelectable, true},
	}
	for _, i := range infos {
		if err := s.RegisterSqlInfo(i.id, i.v); err != nil {
			return err
		}
	}
	return nil
}

// arrowVersion is the arrow-go release the server is built with.
const arrowVersion = "18.8.0"

// metadataInfo describes a metadata result: its ticket is the command
// itself (DoGet answers it from the session's catalogs at that moment).
func (s *Server) metadataInfo(desc *flight.FlightDescriptor, schema *arrow.Schema) *flight.FlightInfo {
	return &flight.FlightInfo{
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.Cmd}}},
		Schema:           flight.SerializeSchema(schema, s.alloc),
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

// oneBatch is a DoGet answer of one record.
func oneBatch(schema *arrow.Schema, cols []arrow.Array) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: rec}
	close(ch)
	return schema, ch, nil
}

// GetFlightInfoCatalogs describes the session's catalog list.
func (s *Server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.Catalogs), nil
}

// DoGetCatalogs lists the session's catalogs (SHOW CATALOGS).
func (s *Server) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	se, err := s.sessionOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	b := array.NewStringBuilder(s.alloc)
	defer b.Release()
	for _, c := range se.env.ListCatalogs() {
		b.Append(c)
	}
	return oneBatch(schema_ref.Catalogs, []arrow.Array{b.NewArray()})
}

// like compiles a Flight SQL filter pattern (SQL LIKE: % and _, \
// escapes); nil matches everything.
func like(pattern *string) *regexp.Regexp {
	if pattern == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("^(?s)")
	p := []rune(*pattern)
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(string(p[i])))
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func matches(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

// databaseRef is one database of one catalog.
type databaseRef struct{ catalog, database string }

// databases lists the databases of the catalogs catalog names (nil: all)
// whose names match pattern.
func databases(env *core.TableEnvironment, catalog *string, pattern *string) ([]databaseRef, error) {
	re := like(pattern)
	var out []databaseRef
	for _, c := range env.ListCatalogs() {
		if catalog != nil && *catalog != c {
			continue
		}
		cat, ok := env.Catalogs().Catalog(c)
		if !ok {
			continue
		}
		dbs, err := cat.ListDatabases()
		if err != nil {
			return nil, status.Errorf(codes.Internal, "catalog %s: %v", c, err)
		}
		for _, d := range dbs {
			if matches(re, d) {
				out = append(out, databaseRef{c, d})
			}
		}
	}
	return out, nil
}

// GetFlightInfoSchemas describes a database list.
func (s *Server) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.DBSchemas), nil
}

// DoGetDBSchemas lists databases (Flight SQL's schemas) by catalog.
func (s *Server) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	se, err := s.sessionOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	dbs, err := databases(se.env, cmd.GetCatalog(), cmd.GetDBSchemaFilterPattern())
	if err != nil {
		return nil, nil, err
	}
	cb, db := array.NewStringBuilder(s.alloc), array.NewStringBuilder(s.alloc)
	defer cb.Release()
	defer db.Release()
	for _, d := range dbs {
		cb.Append(d.catalog)
		db.Append(d.database)
	}
	return oneBatch(schema_ref.DBSchemas, []arrow.Array{cb.NewArray(), db.NewArray()})
}

// GetFlightInfoTables describes a table list.
func (s *Server) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if cmd.GetIncludeSchema() {
		return s.metadataInfo(desc, schema_ref.TablesWithIncludedSchema), nil
	}
	return s.metadataInfo(desc, schema_ref.Tables), nil
}

// DoGetTables lists the tables and views (temporary ones included) of
// the matching databases, with their schemas when asked.
func (s *Server) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	se, err := s.sessionOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	dbs, err := databases(se.env, cmd.GetCatalog(), cmd.GetDBSchemaFilterPattern())
	if err != nil {
		return nil, nil, err
	}
	re := like(cmd.GetTableNameFilterPattern())
	var want map[string]bool
	if types := cmd.GetTableTypes(); len(types) > 0 {
		want = map[string]bool{}
		for _, t := range types {
			want[strings.ToUpper(t)] = true
		}
	}
	schema := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		schema = schema_ref.TablesWithIncludedSchema
	}
	cb, db, tb, kb := array.NewStringBuilder(s.alloc), array.NewStringBuilder(s.alloc), array.NewStringBuilder(s.alloc), array.NewStringBuilder(s.alloc)
	sb := array.NewBinaryBuilder(s.alloc, arrow.BinaryTypes.Binary)
	defer func() {
		for _, b := range []array.Builder{cb, db, tb, kb, sb} {
			b.Release()
		}
	}()
	mgr := se.env.Catalogs()
	for _, d := range dbs {
		all, err := mgr.ListObjects(d.catalog, d.database, false, true)
		if err != nil {
			return nil, nil, status.Errorf(codes.Internal, "%s.%s: %v", d.catalog, d.database, err)
		}
		views, err := mgr.ListObjects(d.catalog, d.database, true, false)
		if err != nil {
			return nil, nil, status.Errorf(codes.Internal, "%s.%s: %v", d.catalog, d.database, err)
		}
		isView := map[string]bool{}
		for _, v := range views {
			isView[v] = true
		}
		for _, name := range all {
			kind := tableTypeTable
			if isView[name] {
				kind = tableTypeView
			}
			if !matches(re, name) || (want != nil && !want[kind]) {
				continue
			}
			cb.Append(d.catalog)
			db.Append(d.database)
			tb.Append(name)
			kb.Append(kind)
			if cmd.GetIncludeSchema() {
				sb.Append(flight.SerializeSchema(s.tableSchema(se.env, d, name), s.alloc))
			}
		}
	}
	cols := []arrow.Array{cb.NewArray(), db.NewArray(), tb.NewArray(), kb.NewArray()}
	if cmd.GetIncludeSchema() {
		cols = append(cols, sb.NewArray())
	}
	return oneBatch(schema, cols)
}

// tableSchema returns the Arrow schema of a table or view (its columns,
// computed ones included); an object that does not resolve (a view over
// a dropped table) has an empty schema.
func (s *Server) tableSchema(env *core.TableEnvironment, d databaseRef, name string) *arrow.Schema {
	quote := func(p string) string { return "`" + strings.ReplaceAll(p, "`", "``") + "`" }
	t, err := env.From(quote(d.catalog) + "." + quote(d.database) + "." + quote(name))
	if err != nil {
		return arrow.NewSchema(nil, nil)
	}
	as, err := arrowSchema(t.Schema(), false)
	if err != nil {
		return arrow.NewSchema(nil, nil)
	}
	return as
}

// GetFlightInfoTableTypes describes the table type list.
func (s *Server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(desc, schema_ref.TableTypes), nil
}

// DoGetTableTypes lists TABLE and VIEW.
func (s *Server) DoGetTableTypes(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewStringBuilder(s.alloc)
	defer b.Release()
	b.AppendValues([]string{tableTypeTable, tableTypeView}, nil)
	return oneBatch(schema_ref.TableTypes, []arrow.Array{b.NewArray()})
}
