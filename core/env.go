// Package core is tablerun's facade: the TableEnvironment that runs Flink
// SQL statements end to end (parse, validate, optimize, execute), the
// TableResult it returns and the tableau printer of Flink's SQL client.
//
// Execution modes. InBatchMode runs every query with batch semantics over
// bounded sources. InStreamingMode (Flink's default) plans queries and
// INSERTs as streaming jobs whose results are changelogs (+I, -U, +U, -D),
// printed with an op column; see stream.go. AUTOMATIC behaves as BATCH.
package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/connectors/memory"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/planner/validate"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/build"
)

// EnvironmentSettings configure a new TableEnvironment. Build them with
// InBatchMode or InStreamingMode and refine with WithOption.
type EnvironmentSettings struct {
	options map[string]string
	// configFile is the YAML configuration file read below options
	// (WithConfigFile; config_file.go); "" for none.
	configFile string
}

// InBatchMode returns settings for batch execution
// (execution.runtime-mode = BATCH).
func InBatchMode() EnvironmentSettings {
	return EnvironmentSettings{options: map[string]string{config.KeyRuntimeMode: "BATCH"}}
}

// InStreamingMode returns settings for streaming execution. STREAMING is
// Flink's default for execution.runtime-mode, so (as in Flink's SQL client)
// the option is not set explicitly and `SET;` does not list it. Jobs are
// not supported yet in this mode; see the package documentation.
func InStreamingMode() EnvironmentSettings {
	return EnvironmentSettings{options: map[string]string{}}
}

// WithOption returns a copy of s with one more initial session option. The
// options are the session's initial configuration: RESET returns to them.
func (s EnvironmentSettings) WithOption(key, value string) EnvironmentSettings {
	m := make(map[string]string, len(s.options)+1)
	for k, v := range s.options {
		m[k] = v
	}
	m[key] = value
	s.options = m
	return s
}

// TableEnvironment is a session: a configuration, a catalog manager and the
// registries of functions and connectors. Every method is safe for
// concurrent use (TestConcurrentEnvironment drives them all from 8
// goroutines under -race): statements from several goroutines (ExecuteSQL,
// SQLQuery, Table.Execute, Table.Explain) and the methods that register
// functions or in-memory tables run one at a time; the configuration
// (Config), the catalog methods and the output writers may be used at any
// time, also while a statement runs.
type TableEnvironment struct {
	// mu serialises statements and the methods that change what statements
	// read (functions, in-memory tables); see session.go.
	mu sync.Mutex
	// state guards the few fields read outside statements as well: the
	// output writers and the lazily made function state. It is taken last
	// and held briefly.
	state    sync.Mutex
	jobs     *jobRegistry // jobs.go
	jobsOnce sync.Once
	cfg      *config.Config
	cat      *catalog.Manager
	fns      *function.Registry
	conns    *connectors.Registry
	stdout   io.Writer
	stderr   io.Writer
	initErr  error
	now      func() time.Time
	// stmtSet collects the INSERTs between BEGIN STATEMENT SET and END;
	// nil outside a statement set.
	stmtSet []*logical.Sink
	// mem holds the batches of tables made by FromRecords; nil until used.
	mem *memory.Factory
	// fn holds the function catalog and modules (functions.go); nil until
	// used.
	fn *functionState
	// remote is the SQL Gateway that runs the statements of a remote
	// session (remote.go); nil for a local one.
	remote *remoteExec
}

// NewTableEnvironment returns a new session. An invalid option in settings
// does not panic: every statement of the session then fails with it.
func NewTableEnvironment(settings EnvironmentSettings) *TableEnvironment {
	cfg, err := newSessionConfig(settings) // config_file.go
	if err != nil {
		cfg, _ = config.New(nil)
	}
	e := &TableEnvironment{
		cfg:    cfg,
		fns:    function.Builtins(),
		conns:  connectors.Builtin(),
		stdout: os.Stdout,
		stderr: os.Stderr,
		now:    time.Now,
	}
	if err != nil {
		e.initErr = classify(KindValidation, err)
	}
	e.cat = catalog.NewManager(cfg.BuiltinCatalog(), cfg.BuiltinDatabase())
	if err := e.openCatalogStore(); err != nil && e.initErr == nil {
		e.initErr = err
	}
	return e
}

// SetOutput sets where connectors that print (print) write; the default is
// the process's stdout and stderr.
func (e *TableEnvironment) SetOutput(stdout, stderr io.Writer) {
	e.state.Lock()
	defer e.state.Unlock()
	e.stdout, e.stderr = stdout, stderr
}

// Config returns the session configuration. Changing it directly skips
// SET's validation messages but not its checks.
func (e *TableEnvironment) Config() *config.Config { return e.cfg }

// Catalogs returns the session's catalog manager.
func (e *TableEnvironment) Catalogs() *catalog.Manager { return e.cat }

// Functions returns the session's function registry.
func (e *TableEnvironment) Functions() *function.Registry { return e.fns }

// RegisterConnectorFactory makes a connector available to the session's
// tables: a table with 'connector' = f.Identifier() is read and written
// through f. What the connector can do beyond a plain scan and an
// insert-only write (boundedness, projection, filter and limit push-down,
// lookups, the row kinds its sink takes) it declares by implementing
// connectors.AbilitiesFactory; the planner reads nothing else. As two
// factories of one identifier in Flink's classpath, an identifier that is
// already registered (a built-in one too) is an error.
func (e *TableEnvironment) RegisterConnectorFactory(f connectors.Factory) error {
	if f == nil || f.Identifier() == "" {
		return classify(KindValidation, fmt.Errorf("a connector factory needs a non-empty identifier"))
	}
	if err := e.conns.RegisterNew(f, "org.apache.flink.table.factories.DynamicTableFactory"); err != nil {
		return classify(KindValidation, err)
	}
	return nil
}

// ExecuteSQL parses and runs one statement eagerly: DDL changes the
// catalog, SET/RESET the configuration, queries and INSERT run their job to
// the end. A statement that fails returns an *Error and leaves the session
// unchanged.
func (e *TableEnvironment) ExecuteSQL(ctx context.Context, sql string) (res *TableResult, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, recovered(r)
		}
	}()
	if e.initErr != nil {
		return nil, e.initErr
	}
	start := e.now()
	if e.remote != nil {
		res, err = e.executeRemote(ctx, sql)
		if err != nil {
			return nil, err
		}
		res.elapsed = time.Since(start)
		return res, nil
	}
	st, err := parser.ParseStatement(sql)
	if err != nil {
		if multipleStatements(sql) {
			return nil, classify(KindParse, &javaError{class: "java.lang.IllegalArgumentException", msg: "only single statement supported"})
		}
		return nil, classify(KindParse, err)
	}
	switch s := st.(type) {
	case *ast.StopJob:
		// Not under the session lock: a synchronous job may hold it
		// (jobs.go).
		e.mu.Unlock()
		defer e.mu.Lock()
		return e.stopJob(ctx, s)
	case *ast.ShowJobs:
		return e.showJobs(), nil
	case *ast.DescribeJob:
		return e.describeJob(s.ID)
	}
	res, err = e.execute(ctx, st, start)
	if err != nil {
		return nil, e.locate(err, sql)
	}
	res.elapsed = time.Since(start)
	return res, nil
}

// SQLQuery parses and validates a query and returns it as a Table without
// running anything.
func (e *TableEnvironment) SQLQuery(sql string) (t *Table, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, recovered(r)
		}
	}()
	if e.initErr != nil {
		return nil, e.initErr
	}
	if e.remote != nil {
		return nil, errRemoteOnly("SQLQuery")
	}
	st, err := parser.ParseStatement(sql)
	if err != nil {
		return nil, classify(KindParse, err)
	}
	q, ok := st.(*ast.QueryStmt)
	if !ok {
		return nil, classify(KindValidation, fmt.Errorf("Unsupported SQL query! sqlQuery() only accepts a single SQL query."))
	}
	plan, err := e.validator(e.now()).Query(q.Query)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	return &Table{env: e, plan: plan, query: q.Query, text: q.Text}, nil
}

// Table is a validated query that has not run. Execute runs it; Explain
// shows its plan.
type Table struct {
	env  *TableEnvironment
	plan logical.Node
	// query and text are the SQL the table was made from (nil and "" for
	// tables built otherwise); CreateTemporaryView stores them.
	query ast.Query
	text  string
	// err is the error of a Table API call that built this table
	// (session_tableapi.go); Execute and Explain return it. sorted marks
	// a table made by OrderBy, which Limit extends.
	err    error
	sorted bool
}

// Schema returns the columns of the query's result (nil for a table whose
// Table API call failed; see Err).
func (t *Table) Schema() types.Schema {
	if t.plan == nil {
		return nil
	}
	return t.plan.Schema()
}

// Execute runs the query to the end with the session's current
// configuration and returns its rows.
func (t *Table) Execute(ctx context.Context) (res *TableResult, err error) {
	if t.err != nil {
		return nil, t.err
	}
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, recovered(r)
		}
	}()
	start := t.env.now()
	res, err = t.env.runQuery(ctx, t.plan, start)
	if err != nil {
		return nil, err
	}
	res.elapsed = time.Since(start)
	return res, nil
}

// Explain returns the query's plan in Flink's EXPLAIN layout.
func (t *Table) Explain() (text string, err error) {
	if t.err != nil {
		return "", t.err
	}
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			text, err = "", recovered(r)
		}
	}()
	return t.env.explain(t.plan, nil, t.env.now())
}

func (e *TableEnvironment) validator(now time.Time) *validate.Validator {
	return validate.New(e.cat, e.fns, validate.Options{
		Loc:       e.cfg.LocalTimeZone(),
		Now:       now,
		Streaming: e.cfg.RuntimeMode() == config.Streaming,
		Functions: e.functionResolver(),
		Abilities: e.conns.Abilities,
	})
}

func (e *TableEnvironment) evalContext(now time.Time) *function.EvalContext {
	return &function.EvalContext{Loc: e.cfg.LocalTimeZone(), Now: now,
		Catalog: e.cat.CurrentCatalog(), Database: e.cat.CurrentDatabase()}
}

// planOptions returns the optimizer options: the rules switched off by
// table.optimizer.disabled-rules.
func (e *TableEnvironment) planOptions() planner.Options {
	if e.cfg.AllRulesDisabled() {
		o := planner.AllRulesOff()
		o.Streaming = e.streaming()
		return o
	}
	m := map[string]bool{}
	for _, n := range e.cfg.DisabledRules() {
		m[n] = true
	}
	// Join reordering applies to batch plans only: a streaming plan keeps
	// the FROM clause's order (its joins keep state per input, and
	// interval and temporal joins are recognised in the written order).
	return planner.Options{Disabled: m, Streaming: e.streaming(), JoinReorder: e.cfg.JoinReorderEnabled() && !e.streaming()}
}

// checkBatch is where jobs used to be refused in streaming mode; the
// streaming runtime runs them now, so it never fails.
func (e *TableEnvironment) checkBatch() error { return nil }

// optimize runs the rules and the physical translation.
func (e *TableEnvironment) optimize(plan logical.Node, now time.Time) (logical.Node, physical.Node, error) {
	opts, err := e.withMiniBatch(e.planOptions())
	if err != nil {
		return nil, nil, classify(KindPlanner, err)
	}
	opt, phys, err := planner.Optimize(plan, e.fns, e.evalContext(now), opts)
	if err != nil {
		return nil, nil, classify(KindPlanner, err)
	}
	return opt, phys, nil
}

func (e *TableEnvironment) buildEnv(now time.Time) *build.Env {
	par := e.cfg.DefaultParallelism()
	if par <= 0 {
		par = 1
	}
	stdout, stderr := e.Output()
	applyProcessMemory(e.cfg.ProcessMemorySize()) // memory.go
	return &build.Env{
		Connectors: e.conns,
		Conn: &connectors.Context{
			Loc:         e.cfg.LocalTimeZone(),
			Stdout:      stdout,
			Stderr:      stderr,
			Parallelism: par,
			BatchSize:   e.cfg.BatchSize(),
			Bounded:     !e.streaming(),
		},
		Functions:       e.fns,
		Eval:            e.evalContext(now),
		SinkNotNullDrop: e.cfg.SinkNotNullDrop(),
		StateTTL:        e.stateTTL(),
		Spill:           e.spillConfig(),
		Parallelism:     e.streamParallelism(par),
		// table.exec.source.idle-timeout (streaming only).
		SourceIdleTimeout: e.sourceIdleTimeout(),
		// state.backend.type (streaming only; statebackend.go).
		DiskState: e.diskState(),
	}
}

// streamParallelism is the number of instances of the parallel nodes:
// table.exec.resource.default-parallelism in streaming mode; batch plans
// run once.
func (e *TableEnvironment) streamParallelism(par int) int {
	if !e.streaming() {
		return 1
	}
	return par
}

// runQuery optimizes and runs a query plan and collects its rows.
func (e *TableEnvironment) runQuery(ctx context.Context, plan logical.Node, now time.Time) (*TableResult, error) {
	if e.streaming() {
		return e.runStreamQuery(ctx, plan, now)
	}
	_, phys, err := e.optimize(plan, now)
	if err != nil {
		return nil, err
	}
	schema := plan.Schema()
	var rows [][]any
	err = build.Run(ctx, phys, e.buildEnv(now), func(b vectorized.Batch) error {
		if b.Rec == nil {
			return nil
		}
		rows = append(rows, types.RecordRows(b.Rec, schema)...)
		return nil
	})
	if err != nil {
		return nil, classify(KindExecution, err)
	}
	return &TableResult{
		kind:     SuccessWithContent,
		schema:   schema,
		rows:     rows,
		query:    true,
		loc:      e.cfg.LocalTimeZone(),
		maxWidth: e.cfg.MaxColumnWidth(),
	}, nil
}

// runInsert validates, optimizes and runs an INSERT to the end.
func (e *TableEnvironment) runInsert(ctx context.Context, s *ast.Insert, now time.Time) (*TableResult, error) {
	sink, err := e.validator(now).Insert(s)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	return e.runSinks(ctx, []*logical.Sink{sink}, now)
}

// runSinks optimizes and runs INSERT plans one after the other (a
// statement set). The result has one BIGINT column per sink, named after
// it, holding -1, as Flink's.
func (e *TableEnvironment) runSinks(ctx context.Context, sinks []*logical.Sink, now time.Time) (*TableResult, error) {
	if err := e.checkBatch(); err != nil {
		return nil, err
	}
	plans := make([]physical.Node, len(sinks))
	for i, sink := range sinks {
		_, phys, err := e.optimize(sink, now)
		if err != nil {
			return nil, err
		}
		plans[i] = phys
	}
	res := &TableResult{kind: SuccessWithContent, dml: true, rows: [][]any{{}}}
	var names []string
	for _, sink := range sinks {
		if sink.Table != nil {
			names = append(names, sink.Table.ID.Summary())
		}
	}
	// The job (jobs.go): one per INSERT or statement set, listed by SHOW
	// JOBS; it checkpoints and restores as the session configures.
	async := e.asyncDML()
	jctx := ctx
	if async {
		jctx = context.WithoutCancel(ctx)
	}
	j, jctx := e.newJob(jctx, e.jobName(names))
	envs := make([]*build.Env, len(plans))
	for i := range plans {
		envs[i] = e.buildEnv(now)
		ck, err := e.checkpointSettings(j)
		if err != nil {
			j.cancel(nil)
			return nil, err
		}
		envs[i].Checkpoint = ck
		envs[i].Drain = j.drain
	}
	e.register(j, async)
	run := func() error {
		for i, phys := range plans {
			if err := build.Run(jctx, phys, envs[i], func(vectorized.Batch) error { return nil }); err != nil {
				if c := context.Cause(jctx); errors.Is(c, errJobStopped) {
					return c
				}
				return classify(KindExecution, err)
			}
		}
		return nil
	}
	res.jobID = j.info.ID
	if async {
		res.submitted = true
		go func() { j.finish(run()) }()
	} else {
		err := run()
		j.finish(err)
		if err != nil && !errors.Is(err, errJobStopped) {
			return nil, err
		}
	}
	seen := map[string]int{}
	for i := range plans {
		name := "sink"
		if sinks[i].Table != nil {
			name = sinks[i].Table.ID.Summary()
		}
		if n := seen[name]; n > 0 {
			seen[name] = n + 1
			name = fmt.Sprintf("%s_%d", name, n)
		} else {
			seen[name] = 1
		}
		res.schema = append(res.schema, types.Field{Name: name, Type: types.BigIntT})
		res.rows[0] = append(res.rows[0], int64(-1))
	}
	return res, nil
}

// explain plans a query or an INSERT and returns Flink's EXPLAIN text.
func (e *TableEnvironment) explain(plan logical.Node, details []string, now time.Time) (string, error) {
	if err := e.checkBatch(); err != nil {
		return "", err
	}
	if err := planner.CheckExplainDetails(details); err != nil {
		return "", classify(KindValidation, err)
	}
	if err := e.checkConnectorOptions(plan); err != nil {
		return "", err
	}
	_, phys, err := e.optimize(plan, now)
	if err != nil {
		return "", err
	}
	if err := checkJSONPlan(phys, details); err != nil { // explain_options.go
		return "", err
	}
	mbOpts, _ := e.withMiniBatch(e.planOptions())
	return planner.ExplainWith(plan, phys, details, mbOpts.Stream.MiniBatch), nil
}

// stringResult is a single-STRING-column result such as SHOW's.
func stringResult(header string, values []string) *TableResult {
	rows := make([][]any, len(values))
	for i, v := range values {
		rows[i] = []any{v}
	}
	return &TableResult{kind: SuccessWithContent, schema: types.Schema{{Name: header, Type: types.StringT}}, rows: rows}
}
