package flightsql

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// startServer serves on a free loopback port until the test ends.
func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	require.NoError(t, err)
	require.NoError(t, s.Listen("127.0.0.1:0"))
	t.Cleanup(s.Shutdown)
	return s
}

// dial connects arrow-go's Flight SQL client (one connection: one session).
func dial(t *testing.T, s *Server) *flightsql.Client {
	t.Helper()
	c, err := flightsql.NewClient(s.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// fetch runs a query and returns its schema and rows, each row as the
// values GetOneForMarshal gives, formatted with %v.
func fetch(ctx context.Context, t *testing.T, c *flightsql.Client, sql string, opts ...grpc.CallOption) (*arrow.Schema, []string, error) {
	t.Helper()
	info, err := c.Execute(ctx, sql, opts...)
	if err != nil {
		return nil, nil, err
	}
	return read(ctx, t, c, info, opts...)
}

func read(ctx context.Context, t *testing.T, c *flightsql.Client, info *flight.FlightInfo, opts ...grpc.CallOption) (*arrow.Schema, []string, error) {
	t.Helper()
	want, err := flight.DeserializeSchema(info.Schema, nil)
	require.NoError(t, err)
	r, err := c.DoGet(ctx, info.Endpoint[0].Ticket, opts...)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	require.True(t, want.Equal(r.Schema()), "FlightInfo schema %s, stream schema %s", want, r.Schema())
	var rows []string
	for r.Next() {
		rows = append(rows, recordRows(r.RecordBatch())...)
	}
	return r.Schema(), rows, r.Err()
}

func recordRows(rec arrow.RecordBatch) []string {
	var rows []string
	for i := 0; i < int(rec.NumRows()); i++ {
		var vals []string
		for _, col := range rec.Columns() {
			vals = append(vals, fmt.Sprint(col.GetOneForMarshal(i)))
		}
		rows = append(rows, strings.Join(vals, " "))
	}
	return rows
}

func update(ctx context.Context, t *testing.T, c *flightsql.Client, sql string) {
	t.Helper()
	n, err := c.ExecuteUpdate(ctx, sql)
	require.NoError(t, err, sql)
	require.EqualValues(t, -1, n)
}

func TestQueryDDLInsertAndTypes(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)

	schema, rows, err := fetch(ctx, t, c, "SELECT 1 + 1 AS two, 'x' AS s, CAST(2.50 AS DECIMAL(5, 2)) AS d")
	require.NoError(t, err)
	require.Equal(t, []string{"2 x 2.5"}, rows)
	require.Equal(t, "two", schema.Field(0).Name)
	require.Equal(t, &arrow.Decimal128Type{Precision: 5, Scale: 2}, schema.Field(2).Type)
	tn, _ := schema.Field(2).Metadata.GetValue(flightsql.TypeNameKey)
	require.Equal(t, "DECIMAL(5, 2) NOT NULL", tn)

	update(ctx, t, c, fmt.Sprintf("CREATE TABLE sink (k INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", t.TempDir()))
	update(ctx, t, c, "INSERT INTO sink VALUES (1, 'a'), (2, 'b')")
	_, rows, err = fetch(ctx, t, c, "SELECT k, v FROM sink ORDER BY k")
	require.NoError(t, err)
	require.Equal(t, []string{"1 a", "2 b"}, rows)

	// DDL through GetFlightInfo (ADBC's cursor.execute): Flink's OK.
	_, rows, err = fetch(ctx, t, c, "CREATE VIEW big AS SELECT k FROM sink WHERE k > 1")
	require.NoError(t, err)
	require.Equal(t, []string{"OK"}, rows)
	_, rows, err = fetch(ctx, t, c, "SHOW VIEWS")
	require.NoError(t, err)
	require.Equal(t, []string{"big"}, rows)

	// A query is not an update.
	_, err = c.ExecuteUpdate(ctx, "SELECT 1")
	require.Equal(t, codes.InvalidArgument, status.Code(err))
}

func TestErrorsCarryFlinkReasonAndPosition(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)
	update(ctx, t, c, fmt.Sprintf("CREATE TABLE t (amount INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", t.TempDir()))

	_, _, err := fetch(ctx, t, c, "SELECT\n  amont FROM t")
	st, _ := status.FromError(err)
	require.Equal(t, codes.InvalidArgument, st.Code(), err)
	require.Contains(t, st.Message(), "org.apache.calcite.sql.validate.SqlValidatorException: Column 'amont' not found in any table")
	require.Contains(t, st.Message(), "From line 2, column 3 to line 2, column 7:\n  amont FROM t\n  ^^^^^\nDid you mean 'amount'?")

	_, _, err = fetch(ctx, t, c, "SELEC 1")
	st, _ = status.FromError(err)
	require.Equal(t, codes.InvalidArgument, st.Code(), err)
	require.Contains(t, st.Message(), "org.apache.flink.sql.parser.impl.ParseException")
	require.Contains(t, st.Message(), "line 1, column 1")

	// A failure while the job runs ends the stream with the error.
	update(ctx, t, c, `CREATE TABLE words (s STRING) WITH ('connector' = 'values', 'data' = '[["x"]]')`)
	_, _, err = fetch(ctx, t, c, "SELECT CAST(s AS INT) FROM words")
	st, _ = status.FromError(err)
	require.Equal(t, codes.Aborted, st.Code(), err)
	require.Equal(t, "java.lang.NumberFormatException: For input string: 'x'", st.Message())
	update(ctx, t, c, "INSERT INTO t VALUES (1)")

	// The session survives errors.
	_, rows, err := fetch(ctx, t, c, "SELECT amount FROM t")
	require.NoError(t, err)
	require.Equal(t, []string{"1"}, rows)
}

func TestStreamingChangelogHasOpColumn(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)
	update(ctx, t, c, "SET 'execution.runtime-mode' = 'streaming'")
	update(ctx, t, c, `CREATE TABLE t (k INT, v INT) WITH ('connector' = 'values', 'data' = '[[1, 1], [1, 2], [2, 3]]')`)
	schema, rows, err := fetch(ctx, t, c, "SELECT k, SUM(v) AS total FROM t GROUP BY k")
	require.NoError(t, err)
	require.Equal(t, []string{"op", "k", "total"}, []string{schema.Field(0).Name, schema.Field(1).Name, schema.Field(2).Name})
	require.Equal(t, []string{"+I 1 1", "-U 1 1", "+U 1 3", "+I 2 3"}, rows)
}

func TestUnboundedStreamCancels(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)
	update(ctx, t, c, "SET 'execution.runtime-mode' = 'streaming'")
	update(ctx, t, c, `CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '9223372036854775806')`)
	info, err := c.Execute(ctx, "SELECT id FROM gen")
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	r, err := c.DoGet(rctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	got := 0
	for got < 3 && r.Next() {
		got++
	}
	require.Equal(t, 3, got, "batches arrive while the job runs: %v", r.Err())
	require.Equal(t, 1, s.Running())
	cancel()
	r.Release()
	require.Eventually(t, func() bool { return s.Running() == 0 }, 10*time.Second, 20*time.Millisecond, "the job must stop when the client cancels")

	// CancelFlightInfo stops a running query too.
	info, err = c.Execute(ctx, "SELECT id FROM gen")
	require.NoError(t, err)
	r, err = c.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, r.Next())
	res, err := c.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	require.NoError(t, err)
	require.Equal(t, flight.CancelStatusCancelled, res.Status)
	for r.Next() {
	}
	require.Equal(t, codes.Canceled, status.Code(r.Err()), r.Err())
	r.Release()
	require.Eventually(t, func() bool { return s.Running() == 0 }, 10*time.Second, 20*time.Millisecond)
}

func TestSessionPerConnection(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	a, b := dial(t, s), dial(t, s)
	update(ctx, t, a, "CREATE TEMPORARY VIEW mine AS SELECT 1 AS x")
	_, rows, err := fetch(ctx, t, a, "SELECT x FROM mine")
	require.NoError(t, err)
	require.Equal(t, []string{"1"}, rows)
	_, _, err = fetch(ctx, t, b, "SELECT x FROM mine")
	require.Equal(t, codes.InvalidArgument, status.Code(err), "another connection is another session")
	require.Equal(t, 2, s.Sessions())
	require.NoError(t, a.Close())
	require.Eventually(t, func() bool { return s.Sessions() == 1 }, 5*time.Second, 10*time.Millisecond, "a session closes with its connection")
}

func TestPreparedStatements(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)
	ddl, err := c.Prepare(ctx, "CREATE TABLE t (k INT) WITH ('connector' = 'values', 'data' = '[[1], [2], [3]]')")
	require.NoError(t, err)
	require.Nil(t, ddl.DatasetSchema())
	n, err := ddl.ExecuteUpdate(ctx)
	require.NoError(t, err)
	require.EqualValues(t, -1, n)
	require.NoError(t, ddl.Close(ctx))

	q, err := c.Prepare(ctx, "SELECT k * 10 AS k10 FROM t WHERE k > 1")
	require.NoError(t, err)
	require.Equal(t, "k10", q.DatasetSchema().Field(0).Name)
	for range 2 { // a prepared query runs again at each execution
		info, err := q.Execute(ctx)
		require.NoError(t, err)
		_, rows, err := read(ctx, t, c, info)
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"20", "30"}, rows)
	}
	require.NoError(t, q.Close(ctx))

	_, err = c.Prepare(ctx, "SELECT nope FROM t")
	require.Equal(t, codes.InvalidArgument, status.Code(err))
}

func TestCatalogMetadata(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)
	update(ctx, t, c, "CREATE DATABASE sales")
	update(ctx, t, c, "CREATE TABLE sales.orders (id BIGINT, amount DECIMAL(10, 2)) WITH ('connector' = 'values')")
	update(ctx, t, c, "CREATE VIEW sales.big AS SELECT id FROM sales.orders WHERE amount > 100")
	update(ctx, t, c, "CREATE CATALOG lake WITH ('type' = 'generic_in_memory')")

	info, err := c.GetCatalogs(ctx)
	require.NoError(t, err)
	_, rows, err := read(ctx, t, c, info)
	require.NoError(t, err)
	require.Equal(t, []string{"default_catalog", "lake"}, rows)

	pat := "sal%"
	info, err = c.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{DbSchemaFilterPattern: &pat})
	require.NoError(t, err)
	_, rows, err = read(ctx, t, c, info)
	require.NoError(t, err)
	require.Equal(t, []string{"default_catalog sales"}, rows)

	cat := "default_catalog"
	info, err = c.GetTables(ctx, &flightsql.GetTablesOpts{Catalog: &cat, DbSchemaFilterPattern: &pat, IncludeSchema: true})
	require.NoError(t, err)
	r, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer r.Release()
	require.True(t, r.Next())
	rec := r.RecordBatch()
	require.EqualValues(t, 2, rec.NumRows())
	names := rec.Column(2).(*array.String)
	kinds := rec.Column(3).(*array.String)
	require.Equal(t, []string{"big VIEW", "orders TABLE"}, []string{names.Value(0) + " " + kinds.Value(0), names.Value(1) + " " + kinds.Value(1)})
	ts, err := flight.DeserializeSchema(rec.Column(4).(*array.Binary).Value(1), nil)
	require.NoError(t, err)
	require.Equal(t, "amount", ts.Field(1).Name)
	require.Equal(t, &arrow.Decimal128Type{Precision: 10, Scale: 2}, ts.Field(1).Type)

	info, err = c.GetTableTypes(ctx)
	require.NoError(t, err)
	_, rows, err = read(ctx, t, c, info)
	require.NoError(t, err)
	require.Equal(t, []string{"TABLE", "VIEW"}, rows)

	info, err = c.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoFlightSqlServerName})
	require.NoError(t, err)
	_, rows, err = read(ctx, t, c, info)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Contains(t, rows[0], "tablerun")
}

func TestBearerToken(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{Token: "s3cret"})
	c := dial(t, s)
	_, _, err := fetch(ctx, t, c, "SELECT 1")
	require.Equal(t, codes.Unauthenticated, status.Code(err))
	bad := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer wrong")
	_, _, err = fetch(bad, t, c, "SELECT 1")
	require.Equal(t, codes.Unauthenticated, status.Code(err))
	good := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer s3cret")
	_, rows, err := fetch(good, t, c, "SELECT 1")
	require.NoError(t, err)
	require.Equal(t, []string{"1"}, rows)
}

func TestMalformedRequests(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)
	_, err := c.DoGet(ctx, &flight.Ticket{Ticket: []byte("garbage")})
	if err == nil {
		r, _ := c.DoGet(ctx, &flight.Ticket{Ticket: []byte("garbage")})
		for r.Next() {
		}
		err = r.Err()
	}
	require.Equal(t, codes.InvalidArgument, status.Code(err), err)
	tkt, err := flightsql.CreateStatementQueryTicket([]byte("no-such-handle"))
	require.NoError(t, err)
	r, err := c.DoGet(ctx, &flight.Ticket{Ticket: tkt})
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
	}
	require.Equal(t, codes.NotFound, status.Code(err), err)
	_, _, err = fetch(ctx, t, c, "")
	require.Error(t, err)
	_, _, err = fetch(ctx, t, c, "SELECT 1; SELECT 2")
	require.Error(t, err)
}

func TestIngestMakesATemporaryTable(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, Options{})
	c := dial(t, s)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", ""}, []bool{true, true, false})
	rec := b.NewRecordBatch()
	rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	require.NoError(t, err)
	ingest := func(opts *flightsql.ExecuteIngestOpts) (int64, error) {
		rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		require.NoError(t, err)
		return c.ExecuteIngest(ctx, rdr, opts)
	}
	create := &flightsql.ExecuteIngestOpts{Table: "uploaded", Temporary: true, TableDefinitionOptions: &flightsql.TableDefinitionOptions{
		IfNotExist: flightsql.TableDefinitionOptionsTableNotExistOptionCreate, IfExists: flightsql.TableDefinitionOptionsTableExistsOptionFail}}
	n, err := c.ExecuteIngest(ctx, rdr, create)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	_, rows, err := fetch(ctx, t, c, "SELECT k * 10, name FROM uploaded ORDER BY k")
	require.NoError(t, err)
	require.Equal(t, []string{"10 a", "20 b", "30 <nil>"}, rows)

	_, err = ingest(create)
	require.Error(t, err, "create fails when the table exists")
	replace := &flightsql.ExecuteIngestOpts{Table: "uploaded", Temporary: true, TableDefinitionOptions: &flightsql.TableDefinitionOptions{
		IfNotExist: flightsql.TableDefinitionOptionsTableNotExistOptionCreate, IfExists: flightsql.TableDefinitionOptionsTableExistsOptionReplace}}
	_, err = ingest(replace)
	require.NoError(t, err)
	permanent := &flightsql.ExecuteIngestOpts{Table: "p", TableDefinitionOptions: create.TableDefinitionOptions}
	_, err = ingest(permanent)
	require.Equal(t, codes.Unimplemented, status.Code(err))
	require.Contains(t, status.Convert(err).Message(), "not supported yet")
}

func TestShutdownEndsRunningStreams(t *testing.T) {
	ctx := context.Background()
	s, err := New(Options{})
	require.NoError(t, err)
	require.NoError(t, s.Listen("127.0.0.1:0"))
	c := dial(t, s)
	update(ctx, t, c, "SET 'execution.runtime-mode' = 'streaming'")
	update(ctx, t, c, `CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000')`)
	info, err := c.Execute(ctx, "SELECT id FROM gen")
	require.NoError(t, err)
	r, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer r.Release()
	require.True(t, r.Next())
	start := time.Now()
	s.Shutdown()
	require.Less(t, time.Since(start), 4*time.Second, "Shutdown must not wait for an unbounded stream")
	for r.Next() {
	}
	require.Error(t, r.Err())
	require.Equal(t, 0, s.Running())
	require.Equal(t, 0, s.Sessions())
}
