package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/flinkgw"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
)

// A remote TableEnvironment (NewRemoteTableEnvironment) runs every
// statement on an Apache Flink cluster through its SQL Gateway, as Flink's
// `sql-client.sh gateway --endpoint` does: ExecuteSQL sends the statement
// text to the gateway session and turns the answer into the same
// TableResult a local statement returns, so that PrintClientResult, the
// shell's result modes, Follow and the csv/json/arrow writers print it as
// they print a local one. Query results of a streaming session are
// changelogs read page by page as the gateway hands them out (Close and
// the cancellation of the statement's context cancel the operation and
// its job); batch results, SHOW, DESCRIBE and EXPLAIN are read to the end
// first. The session keeps a local copy of the configuration (the initial
// options, then every SET and RESET that the gateway accepted) for the
// client-side display options (result mode, column width, time cost, time
// zone); the gateway's own session holds the options that matter to the
// job.

// RemoteHeartbeat is how often a remote session tells the gateway it is
// alive (Flink's SQL client: every minute; the gateway closes sessions
// idle for sql-gateway.session.idle-timeout, 10 minutes by default).
var RemoteHeartbeat = time.Minute

// remoteExec is the executor of a remote TableEnvironment.
type remoteExec struct {
	endpoint string
	client   *flinkgw.Client
	sess     *flinkgw.Session
	stop     chan struct{}
	once     sync.Once
}

// NewRemoteTableEnvironment opens a session on the SQL Gateway at endpoint
// ("http://host:8083"; a bare "host:port" means http) and returns a
// TableEnvironment whose statements run there. The settings' options
// (WithOption, the configuration file) become the gateway session's
// properties. With a remote executor only ExecuteSQL runs statements: the
// Table API, Go functions and the registration of catalogs, connectors and
// in-memory tables act on the local session only and the methods that
// would need them fail with ErrNotSupported. Close closes the gateway
// session (and its running operations).
func NewRemoteTableEnvironment(ctx context.Context, endpoint string, settings EnvironmentSettings) (*TableEnvironment, error) {
	e := NewTableEnvironment(settings)
	if e.initErr != nil {
		return nil, e.initErr
	}
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	c := flinkgw.New(endpoint)
	props := map[string]string{}
	for _, en := range e.cfg.Explicit() {
		props[en.Key] = en.Value
	}
	sess, err := c.OpenSession(ctx, "", props)
	if err != nil {
		return nil, remoteError(fmt.Errorf("could not open a session on the SQL Gateway at %s: %w", endpoint, err))
	}
	r := &remoteExec{endpoint: endpoint, client: c, sess: sess, stop: make(chan struct{})}
	go r.heartbeat()
	e.remote = r
	return e, nil
}

// Endpoint returns the SQL Gateway a remote TableEnvironment runs its
// statements on ("" for a local one).
func (e *TableEnvironment) Endpoint() string {
	if e.remote == nil {
		return ""
	}
	return e.remote.endpoint
}

func (r *remoteExec) heartbeat() {
	t := time.NewTicker(RemoteHeartbeat)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_ = r.sess.Heartbeat(ctx)
			cancel()
		}
	}
}

// close ends the heartbeat and closes the gateway session.
func (r *remoteExec) close() error {
	var err error
	r.once.Do(func() {
		close(r.stop)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = r.sess.Close(ctx)
	})
	return err
}

// errRemoteOnly is the error of the local-only methods of a remote
// TableEnvironment.
func errRemoteOnly(what string) error {
	return unsupported("%s with a remote executor (a TableEnvironment of the SQL Gateway at a Flink cluster runs SQL statements only: use ExecuteSQL)", what)
}

// remoteError is an error of the gateway's answer as a statement error:
// the class and message of the root cause of Flink's stack trace, which
// Flink's SQL client prints as the Reason.
func remoteError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var ge *flinkgw.Error
	if errors.As(err, &ge) {
		if class, msg, ok := ge.Root(); ok {
			return &Error{Kind: remoteKind(class), Class: class, Err: &remoteCause{msg: msg, gw: ge}}
		}
	}
	return &Error{Kind: KindExecution, Class: ClassSQLExecution, Err: err}
}

// remoteCause is the message of a remote root cause; errors.As still finds
// the gateway's whole answer (the stack trace) behind it.
type remoteCause struct {
	msg string
	gw  *flinkgw.Error
}

func (c *remoteCause) Error() string { return c.msg }
func (c *remoteCause) Unwrap() error { return c.gw }

// remoteKind guesses the step that failed from the root cause's class.
func remoteKind(class string) ErrorKind {
	switch {
	case strings.Contains(class, "Parse"):
		return KindParse
	case strings.HasSuffix(class, "ValidationException"), strings.HasSuffix(class, "SqlValidatorException"):
		return KindValidation
	case strings.Contains(class, ".catalog."):
		return KindCatalog
	}
	return KindExecution
}

// executeRemote runs one statement on the gateway.
func (e *TableEnvironment) executeRemote(ctx context.Context, sql string) (*TableResult, error) {
	r := e.remote
	start := time.Now()
	text := e.remoteText(sql)
	var execConfig map[string]string
	if !e.cfg.IsSet(config.KeyDMLSync) {
		// tablerun's INSERT runs to its end before the next statement
		// (Flink's default submits it): the same script must see the
		// same tables on both
		execConfig = map[string]string{config.KeyDMLSync: "true"}
	}
	op, err := r.sess.Execute(ctx, text, execConfig)
	if err != nil {
		return nil, remoteError(err)
	}
	rs := newRemoteStream(ctx, op, e.cfg.LocalTimeZone(), r.client.PollInterval)
	first, err := rs.firstPage()
	if err != nil {
		rs.cancel()
		return nil, err
	}
	schema, err := remoteSchema(first.Results.Columns)
	if err != nil {
		rs.cancel()
		return nil, err
	}
	rs.schema = schema
	res := &TableResult{
		kind:     SuccessWithContent,
		schema:   schema,
		query:    first.IsQueryResult,
		loc:      e.cfg.LocalTimeZone(),
		maxWidth: e.cfg.MaxColumnWidth(),
	}
	switch {
	case first.ResultKind == "SUCCESS":
		rs.release()
		e.mirrorConfig(ctx, sql)
		return okResult(), nil
	case !first.IsQueryResult && first.JobID != "":
		// INSERT, a statement set: the job ran to its end (table.dml-sync)
		// or was submitted
		rs.release()
		res.dml, res.jobID = true, first.JobID
		res.submitted = e.asyncDML()
		res.rows = [][]any{{}}
		return res, nil
	case first.IsQueryResult && e.streaming():
		rs.pending = first
		res.changes = &changes{src: rs, start: start}
		if _, err := res.fetch(); err != nil {
			return nil, err
		}
		return res, nil
	}
	// a batch query, SHOW, DESCRIBE, EXPLAIN…: read to the end
	rs.pending = first
	for {
		b, err := rs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rs.cancel()
			return nil, err
		}
		res.rows = append(res.rows, b.Rows...)
	}
	rs.release()
	return res, nil
}

// remoteText is the statement as sent: a SET of 'python.files' gets its
// relative paths made absolute (the gateway resolves them against its own
// working directory, not the client's).
func (e *TableEnvironment) remoteText(sql string) string {
	st, err := parser.ParseStatement(sql)
	if err != nil {
		return sql
	}
	s, ok := st.(*ast.Set)
	if !ok || !s.HasKey || s.Key != "python.files" {
		return sql
	}
	parts := strings.Split(s.Value, ",")
	changed := false
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p != "" && !filepath.IsAbs(p) && !strings.Contains(p, "://") {
			if abs, err := filepath.Abs(p); err == nil {
				if _, err := os.Stat(abs); err == nil {
					p, changed = abs, true
				}
			}
		}
		parts[i] = p
	}
	if !changed {
		return sql
	}
	return fmt.Sprintf("SET 'python.files' = '%s'", strings.ReplaceAll(strings.Join(parts, ","), "'", "''"))
}

// mirrorConfig copies the client-side options (display, result mode,
// runtime mode, time zone, DML sync) from the gateway's session into the
// local configuration after a SET or RESET the gateway accepted. They are
// read back rather than replayed because the gateway's RESET returns to
// the cluster's defaults, not to the options the session was opened with.
func (e *TableEnvironment) mirrorConfig(ctx context.Context, sql string) {
	st, err := parser.ParseStatement(sql)
	if err != nil {
		return
	}
	switch st.(type) {
	case *ast.Set, *ast.Reset:
	default:
		return
	}
	props, err := e.remote.sess.Properties(context.WithoutCancel(ctx))
	if err != nil {
		return
	}
	for _, en := range e.cfg.Explicit() {
		if _, ok := props[en.Key]; !ok && clientSide(en.Key) {
			e.cfg.Unset(en.Key)
		}
	}
	for k, v := range props {
		if clientSide(k) {
			// a value tablerun itself would reject is left out: the
			// display falls back to its default
			_ = e.cfg.Set(k, v)
		}
	}
}

// clientSide reports whether the client reads an option itself.
func clientSide(key string) bool {
	switch key {
	case config.KeyRuntimeMode, config.KeyDMLSync, config.KeyLocalTimeZone:
		return true
	}
	return strings.HasPrefix(key, "sql-client.") || strings.HasPrefix(key, "table.display.")
}

// remoteSchema converts the gateway's columns.
func remoteSchema(cols []flinkgw.Column) (types.Schema, error) {
	schema := make(types.Schema, len(cols))
	for i, c := range cols {
		t, err := flinkgw.TypeOf(c.LogicalType)
		if err != nil {
			return nil, &Error{Kind: KindUnsupported, Class: ClassTable, Err: fmt.Errorf("column %s: %w", c.Name, err)}
		}
		schema[i] = types.Field{Name: c.Name, Type: t}
	}
	return schema, nil
}

// remoteStream reads an operation's result pages: it is the job of a
// streaming result (a jobStream) and the reader of a complete one.
type remoteStream struct {
	op *flinkgw.Operation
	// ctx is the statement's context; stop (Close) ends it too, so that a
	// fetch in flight returns
	ctx    context.Context
	stop   context.CancelFunc
	loc    *time.Location
	poll   time.Duration
	schema types.Schema
	// pending is a page fetched but not handed out yet; next is the URI
	// of the page after it ("" after EOS).
	pending *flinkgw.Page
	next    string
	done    atomic.Bool // EOS was read
	closed  atomic.Bool // Close was called
}

func newRemoteStream(ctx context.Context, op *flinkgw.Operation, loc *time.Location, poll time.Duration) *remoteStream {
	ctx, stop := context.WithCancel(ctx)
	return &remoteStream{op: op, ctx: ctx, stop: stop, loc: loc, poll: poll}
}

// firstPage waits for the operation's first page that is not NOT_READY:
// statement errors surface here.
func (s *remoteStream) firstPage() (*flinkgw.Page, error) {
	uri := ""
	for {
		var p *flinkgw.Page
		var err error
		if uri == "" {
			p, err = s.op.Fetch(s.ctx, 0)
		} else {
			p, err = s.op.FetchURI(s.ctx, uri)
		}
		if err != nil {
			return nil, s.fail(err)
		}
		if p.ResultType != flinkgw.NotReady {
			s.next = p.NextResultURI
			if p.ResultType == flinkgw.EOS {
				s.next = ""
			}
			return p, nil
		}
		uri = p.NextResultURI
		if err := s.wait(0); err != nil {
			return nil, err
		}
	}
}

// fail turns a fetch error into the statement's error; a cancelled
// context cancels the operation.
func (s *remoteStream) fail(err error) error {
	if s.ctx.Err() != nil {
		if !s.closed.Load() {
			s.cancel()
		}
		return context.Canceled
	}
	return remoteError(err)
}

// wait pauses before the next fetch: longer after more empty pages (up to
// 200ms), and not past the context or Close.
func (s *remoteStream) wait(empty int) error {
	d := s.poll
	if d <= 0 {
		d = 50 * time.Millisecond
	}
	if empty > 2 {
		d = min(d*time.Duration(empty-1), 200*time.Millisecond)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		if !s.closed.Load() {
			s.cancel()
		}
		return context.Canceled
	case <-t.C:
		return nil
	}
}

// Next returns the next non-empty run of rows; io.EOF after the last.
func (s *remoteStream) Next() (ChangeBatch, error) {
	empty := 0
	for {
		if s.pending != nil {
			p := s.pending
			s.pending = nil
			if p.ResultType != flinkgw.NotReady && len(p.Results.Data) > 0 {
				return s.batch(p)
			}
			empty++
		}
		if s.next == "" {
			s.done.Store(true)
			return ChangeBatch{}, io.EOF
		}
		if empty > 0 {
			if err := s.wait(empty); err != nil {
				return ChangeBatch{}, err
			}
		}
		p, err := s.op.FetchURI(s.ctx, s.next)
		if err != nil {
			return ChangeBatch{}, s.fail(err)
		}
		s.next = p.NextResultURI
		if p.ResultType == flinkgw.EOS {
			s.next = ""
		}
		s.pending = p
	}
}

// batch converts a page's rows.
func (s *remoteStream) batch(p *flinkgw.Page) (ChangeBatch, error) {
	if p.Results.RowFormat != "" && p.Results.RowFormat != "JSON" {
		return ChangeBatch{}, fmt.Errorf("flink gateway: rowFormat %s, want JSON", p.Results.RowFormat)
	}
	b := ChangeBatch{Kinds: make([]changelog.RowKind, len(p.Results.Data)), Rows: make([]Row, len(p.Results.Data))}
	for i, row := range p.Results.Data {
		switch row.Kind {
		case "INSERT", "":
			b.Kinds[i] = changelog.Insert
		case "UPDATE_BEFORE":
			b.Kinds[i] = changelog.UpdateBefore
		case "UPDATE_AFTER":
			b.Kinds[i] = changelog.UpdateAfter
		case "DELETE":
			b.Kinds[i] = changelog.Delete
		default:
			return ChangeBatch{}, fmt.Errorf("flink gateway: unknown row kind %q", row.Kind)
		}
		if len(row.Fields) != len(s.schema) {
			return ChangeBatch{}, fmt.Errorf("flink gateway: a row of %d fields for %d columns", len(row.Fields), len(s.schema))
		}
		vals := make(Row, len(row.Fields))
		for j, raw := range row.Fields {
			v, err := flinkgw.Value(raw, s.schema[j].Type, s.loc)
			if err != nil {
				return ChangeBatch{}, fmt.Errorf("flink gateway: column %s: %w", s.schema[j].Name, err)
			}
			vals[j] = v
		}
		b.Rows[i] = vals
	}
	return b, nil
}

// cancel cancels the operation on the gateway (its job too) and closes
// it; used when the statement's context ended or a result is dropped.
func (s *remoteStream) cancel() {
	s.stop()
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	_ = s.op.Cancel(ctx)
	_ = s.op.Close(ctx)
}

// release closes a finished operation, freeing its result on the gateway.
func (s *remoteStream) release() {
	s.stop()
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	_ = s.op.Close(ctx)
}

// Close stops reading: a running operation is cancelled and closed.
func (s *remoteStream) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if s.done.Load() {
		s.release()
		return nil
	}
	s.cancel()
	return nil
}
