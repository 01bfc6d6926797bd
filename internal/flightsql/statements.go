package flightsql

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
)

// maxOneShot is how many results of unprepared statements a session keeps
// for DoGet; older tickets expire (NotFound).
const maxOneShot = 256

// statement is a query waiting for DoGet, a prepared statement, or the
// result of a statement that ran.
type statement struct {
	handle   string
	sess     *session
	sql      string
	prepared bool
	// query is the validated query (nil for other statements): DoGet runs
	// it, again at every DoGet.
	query *core.Table
	// op: the query ran as a changelog (streaming mode) and its result has
	// a first column "op" with each row's kind.
	op bool
	// schema is the result's schema: a query's is known before it runs,
	// another statement's once it ran (nil for a prepared one that did
	// not run yet).
	schema *arrow.Schema
	// result is the result table of a statement that ran.
	result arrow.RecordBatch

	mu      sync.Mutex
	cancels map[*int]context.CancelFunc // the DoGets running the query
}

// opField is the first column of a changelog result.
var opField = arrow.Field{Name: "op", Type: arrow.BinaryTypes.String,
	Metadata: flightsql.NewColumnMetadataBuilder().TypeName("STRING").Metadata()}

// arrowSchema maps a result schema to Arrow, with the Flink type of each
// column as Flight SQL's ARROW:FLIGHT:SQL:TYPE_NAME metadata (and the
// precision and scale of decimals), and the op column first for a
// changelog.
func arrowSchema(s types.Schema, op bool) (*arrow.Schema, error) {
	as, err := types.ArrowSchema(s)
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, 0, len(s)+1)
	if op {
		fields = append(fields, opField)
	}
	for i, f := range as.Fields() {
		md := flightsql.NewColumnMetadataBuilder().TypeName(s[i].Type.String())
		if s[i].Type.Kind == types.Decimal {
			md.Precision(int32(s[i].Type.Precision)).Scale(int32(s[i].Type.Scale))
		}
		f.Metadata = md.Metadata()
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil), nil
}

func streaming(env *core.TableEnvironment) bool {
	return env.Config().RuntimeMode() == config.Streaming
}

// isQuery reports whether sql parses as a query; false also when it does
// not parse (ExecuteSQL then reports the error as Flink does).
func isQuery(sql string) bool {
	st, err := parser.ParseStatement(sql)
	if err != nil {
		return false
	}
	_, ok := st.(*ast.QueryStmt)
	return ok
}

// prepare makes the statement of sql in the call's session: a query is
// validated (not run); another statement runs now when run is true
// (GetFlightInfo of an unprepared statement) and waits otherwise (a
// prepared statement runs at execution).
func (s *Server) prepare(ctx context.Context, se *session, sql string, prepared, run bool) (*statement, error) {
	st := &statement{sess: se, sql: sql, prepared: prepared}
	if isQuery(sql) {
		t, err := se.env.SQLQuery(sql)
		if err != nil {
			return nil, statusError(err, sql)
		}
		st.query, st.op = t, streaming(se.env)
		if st.schema, err = arrowSchema(t.Schema(), st.op); err != nil {
			return nil, statusError(err, sql)
		}
	} else if run {
		if err := s.run(ctx, st); err != nil {
			return nil, err
		}
	}
	s.register(st)
	return st, nil
}

// register gives st a handle; a session keeps the newest maxOneShot
// unprepared ones.
func (s *Server) register(st *statement) {
	h := s.newHandle(st)
	if st.prepared {
		return
	}
	se := st.sess
	se.mu.Lock()
	se.recent = append(se.recent, h)
	var old string
	if len(se.recent) > maxOneShot {
		old = se.recent[0]
		se.recent = se.recent[1:]
	}
	se.mu.Unlock()
	if old != "" {
		s.forget([]byte(old))
	}
}

// run executes a statement that is not a query and keeps its result table.
func (s *Server) run(call context.Context, st *statement) error {
	ctx, release := statementCtx(call, st.sess)
	defer release()
	res, err := st.sess.env.ExecuteSQL(ctx, st.sql)
	if err != nil {
		return statusError(err, st.sql)
	}
	schema, err := arrowSchema(res.Schema(), false)
	if err != nil {
		return statusError(err, st.sql)
	}
	rec, err := types.BuildRecord(s.alloc, res.Schema(), res.Rows())
	if err != nil {
		return statusError(err, st.sql)
	}
	defer rec.Release()
	st.schema = schema
	st.result = array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())
	return nil
}

// flightInfo describes the result of st with one endpoint whose ticket is
// st's handle (no location: read it on the same connection).
func (s *Server) flightInfo(st *statement, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	tkt, err := flightsql.CreateStatementQueryTicket([]byte(st.handle))
	if err != nil {
		return nil, err
	}
	info := &flight.FlightInfo{
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: tkt}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
	if st.schema != nil {
		info.Schema = flight.SerializeSchema(st.schema, s.alloc)
	}
	if st.result != nil {
		info.TotalRecords = st.result.NumRows()
	}
	return info, nil
}

// stream starts reading st's result for DoGet: a result table at once, a
// query's batches as its job emits them. The channel is unbuffered: the
// job waits while the client reads, so memory stays bounded, and it stops
// when ctx ends (the client cancelled or went away) or CancelFlightInfo
// cancels it.
func (s *Server) stream(ctx context.Context, st *statement) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	if st.query == nil {
		if st.result == nil {
			return nil, nil, status.Error(codes.FailedPrecondition, "the prepared statement has not run yet: execute it (GetFlightInfo) first")
		}
		ch := make(chan flight.StreamChunk, 1)
		st.result.Retain()
		ch <- flight.StreamChunk{Data: st.result}
		close(ch)
		return st.schema, ch, nil
	}
	if streaming(st.sess.env) != st.op {
		return nil, nil, status.Error(codes.FailedPrecondition, "the session's execution.runtime-mode changed since the statement was prepared: prepare it again")
	}
	ctx, cancel := context.WithCancel(ctx)
	stopWithSession := context.AfterFunc(st.sess.ctx, cancel)
	key := new(int)
	st.mu.Lock()
	if st.cancels == nil {
		st.cancels = map[*int]context.CancelFunc{}
	}
	st.cancels[key] = cancel
	st.mu.Unlock()
	ch := make(chan flight.StreamChunk)
	s.running.Add(1)
	go func() {
		defer close(ch)
		defer s.running.Add(-1)
		defer func() {
			st.mu.Lock()
			delete(st.cancels, key)
			st.mu.Unlock()
			stopWithSession()
			cancel()
		}()
		err := st.query.ExecuteArrowChanges(ctx, func(rec arrow.RecordBatch, kinds []changelog.RowKind) error {
			out, err := st.record(s, rec, kinds)
			if err != nil {
				return err
			}
			select {
			case ch <- flight.StreamChunk{Data: out}:
				return nil
			case <-ctx.Done():
				out.Release()
				return ctx.Err()
			}
		})
		if err != nil {
			// DoGet reads every chunk until the channel closes (after an
			// error of its own too), so this send never blocks for long.
			ch <- flight.StreamChunk{Err: statusError(err, st.sql)}
		}
	}()
	return st.schema, ch, nil
}

// record returns a job's batch as a record of st's schema (with the op
// column for a changelog); the caller owns it.
func (st *statement) record(s *Server, rec arrow.RecordBatch, kinds []changelog.RowKind) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	if !st.op {
		for _, k := range kinds {
			if k != changelog.Insert {
				return nil, fmt.Errorf("the query produces update changes (%s) but was prepared in batch mode: prepare it again", k)
			}
		}
		return array.NewRecordBatch(st.schema, rec.Columns(), rec.NumRows()), nil
	}
	b := array.NewStringBuilder(s.alloc)
	defer b.Release()
	b.Reserve(n)
	b.ReserveData(2 * n)
	for i := 0; i < n; i++ {
		k := changelog.Insert
		if kinds != nil {
			k = kinds[i]
		}
		b.Append(k.String())
	}
	op := b.NewArray()
	defer op.Release()
	cols := append([]arrow.Array{op}, rec.Columns()...)
	return array.NewRecordBatch(st.schema, cols, rec.NumRows()), nil
}

// cancelRuns cancels the DoGets running st's query; it reports whether
// one was running.
func (st *statement) cancelRuns() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, c := range st.cancels {
		c()
	}
	return len(st.cancels) > 0
}

// GetFlightInfoStatement validates a query (or runs another statement)
// and describes its result.
func (s *Server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return nil, status.Error(codes.Unimplemented, "not supported yet: transactions")
	}
	se, err := s.sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.prepare(ctx, se, cmd.GetQuery(), false, true)
	if err != nil {
		return nil, err
	}
	return s.flightInfo(st, desc)
}

// GetSchemaStatement returns a query's schema without running it.
func (s *Server) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	se, err := s.sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	sql := cmd.GetQuery()
	if !isQuery(sql) {
		return nil, status.Error(codes.InvalidArgument, "only a query has a schema before it runs")
	}
	t, err := se.env.SQLQuery(sql)
	if err != nil {
		return nil, statusError(err, sql)
	}
	schema, err := arrowSchema(t.Schema(), streaming(se.env))
	if err != nil {
		return nil, statusError(err, sql)
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, s.alloc)}, nil
}

// DoGetStatement streams the result of a ticket from GetFlightInfo.
func (s *Server) DoGetStatement(ctx context.Context, tkt flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	st, err := s.lookup(tkt.GetStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	return s.stream(ctx, st)
}

// DoPutCommandStatementUpdate runs a statement that returns no rows to
// read (DDL, SET, INSERT…). Flink counts no rows: the count is -1
// (unknown).
func (s *Server) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return 0, status.Error(codes.Unimplemented, "not supported yet: transactions")
	}
	se, err := s.sessionOf(ctx)
	if err != nil {
		return 0, err
	}
	sql := cmd.GetQuery()
	if isQuery(sql) {
		return 0, status.Error(codes.InvalidArgument, "a query returns rows: execute it as a query (CommandStatementQuery), not as an update")
	}
	if err := s.run(ctx, &statement{sess: se, sql: sql}); err != nil {
		return 0, err
	}
	return -1, nil
}

// CreatePreparedStatement validates a query (its schema is the dataset
// schema) or keeps another statement to run at execution. Statements take
// no parameters: tablerun's SQL has no placeholders.
func (s *Server) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (res flightsql.ActionCreatePreparedStatementResult, err error) {
	if len(req.GetTransactionId()) > 0 {
		return res, status.Error(codes.Unimplemented, "not supported yet: transactions")
	}
	se, err := s.sessionOf(ctx)
	if err != nil {
		return res, err
	}
	st, err := s.prepare(ctx, se, req.GetQuery(), true, false)
	if err != nil {
		return res, err
	}
	res.Handle = []byte(st.handle)
	res.DatasetSchema = st.schema
	return res, nil
}

// ClosePreparedStatement forgets a prepared statement.
func (s *Server) ClosePreparedStatement(_ context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	if st, err := s.lookup(req.GetPreparedStatementHandle()); err == nil {
		st.cancelRuns()
	}
	s.forget(req.GetPreparedStatementHandle())
	return nil
}

// GetFlightInfoPreparedStatement describes a prepared query's result, or
// runs a prepared statement of another kind and describes its result.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	st, err := s.lookup(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	if st.query == nil {
		res := &statement{sess: st.sess, sql: st.sql}
		if err := s.run(ctx, res); err != nil {
			return nil, err
		}
		s.register(res)
		st = res
	}
	return s.flightInfo(st, desc)
}

// GetSchemaPreparedStatement returns a prepared query's schema.
func (s *Server) GetSchemaPreparedStatement(_ context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	st, err := s.lookup(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	if st.schema == nil {
		return nil, status.Error(codes.InvalidArgument, "only a query has a schema before it runs")
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(st.schema, s.alloc)}, nil
}

// DoGetPreparedStatement streams a prepared query's result.
func (s *Server) DoGetPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	st, err := s.lookup(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	return s.stream(ctx, st)
}

// errNoParameters is the answer to a client that binds parameters.
var errNoParameters = status.Error(codes.Unimplemented, "not supported yet: parameters of prepared statements (tablerun's SQL has no '?' placeholders)")

// DoPutPreparedStatementQuery would bind parameters.
func (s *Server) DoPutPreparedStatementQuery(_ context.Context, _ flightsql.PreparedStatementQuery, r flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	if hasParameters(r) {
		return nil, errNoParameters
	}
	return nil, nil
}

// DoPutPreparedStatementUpdate runs a prepared statement that is not a
// query.
func (s *Server) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, r flight.MessageReader) (int64, error) {
	if hasParameters(r) {
		return 0, errNoParameters
	}
	st, err := s.lookup(cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	if st.query != nil {
		return 0, status.Error(codes.InvalidArgument, "a query returns rows: execute it as a query, not as an update")
	}
	if err := s.run(ctx, &statement{sess: st.sess, sql: st.sql}); err != nil {
		return 0, err
	}
	return -1, nil
}

// hasParameters reports whether a DoPut carries parameter values.
func hasParameters(r flight.MessageReader) bool {
	if r == nil {
		return false
	}
	for r.Next() {
		if rec := r.RecordBatch(); rec != nil && rec.NumCols() > 0 && rec.NumRows() > 0 {
			return true
		}
	}
	return false
}

// CancelFlightInfo stops the runs of the query a FlightInfo describes.
func (s *Server) CancelFlightInfo(_ context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelFlightInfoResult, error) {
	code, err := s.cancelInfo(req.GetInfo())
	return flight.CancelFlightInfoResult{Status: code}, err
}

func (s *Server) cancelInfo(info *flight.FlightInfo) (flight.CancelStatus, error) {
	if info == nil {
		return flight.CancelStatusUnspecified, status.Error(codes.InvalidArgument, "CancelFlightInfo needs the FlightInfo to cancel")
	}
	code := flight.CancelStatusNotCancellable
	for _, ep := range info.GetEndpoint() {
		tkt, err := flightsql.GetStatementQueryTicket(ep.GetTicket())
		if err != nil {
			return flight.CancelStatusUnspecified, status.Errorf(codes.InvalidArgument, "not a ticket of this server: %v", err)
		}
		st, err := s.lookup(tkt.GetStatementHandle())
		if err != nil {
			return flight.CancelStatusUnspecified, err
		}
		if st.cancelRuns() {
			code = flight.CancelStatusCancelled
		}
	}
	return code, nil
}

// DoPutCommandStatementIngest turns the uploaded record batches (ADBC's
// adbc_ingest) into a temporary table of the session, held in memory
// (core.TableEnvironment.FromRecords): modes create and replace; append
// and permanent tables are not supported yet.
func (s *Server) DoPutCommandStatementIngest(ctx context.Context, cmd flightsql.StatementIngest, r flight.MessageReader) (int64, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return 0, status.Error(codes.Unimplemented, "not supported yet: transactions")
	}
	if !cmd.GetTemporary() {
		return 0, status.Error(codes.Unimplemented, "not supported yet: ingesting into a permanent table; ingest a temporary one (ADBC: temporary=True): it lives in the session's memory")
	}
	se, err := s.sessionOf(ctx)
	if err != nil {
		return 0, err
	}
	quote := func(p string) string { return "`" + strings.ReplaceAll(p, "`", "``") + "`" }
	var parts []string
	for _, p := range []string{cmd.GetCatalog(), cmd.GetSchema()} {
		if p != "" {
			parts = append(parts, quote(p))
		}
	}
	if cmd.GetTable() == "" {
		return 0, status.Error(codes.InvalidArgument, "ingest needs a table name")
	}
	path := strings.Join(append(parts, quote(cmd.GetTable())), ".")
	opts := cmd.GetTableDefinitionOptions()
	switch opts.GetIfExists() {
	case flightsql.TableDefinitionOptionsTableExistsOptionAppend:
		return 0, status.Error(codes.Unimplemented, "not supported yet: appending to an ingested table (ingest with mode create or replace)")
	case flightsql.TableDefinitionOptionsTableExistsOptionReplace:
		se.env.DropTemporaryTable(path)
	}
	if opts.GetIfNotExist() == flightsql.TableDefinitionOptionsTableNotExistOptionFail {
		return 0, status.Errorf(codes.NotFound, "table %s does not exist (ingesting appends only to tables made by ingest: not supported yet)", path)
	}
	var recs []arrow.RecordBatch // the table keeps them
	ok := false
	defer func() {
		if !ok {
			for _, rec := range recs {
				rec.Release()
			}
		}
	}()
	n := int64(0)
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
		n += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		return 0, status.Errorf(codes.InvalidArgument, "reading the uploaded batches: %v", err)
	}
	if err := se.env.FromRecords(path, r.Schema(), recs); err != nil {
		return 0, statusError(err, "")
	}
	ok = true
	return n, nil
}
