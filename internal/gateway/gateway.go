// Package gateway serves Apache Flink's SQL Gateway REST API (the REST
// endpoint of Flink 2.3, API versions v1 to v4) on top of tablerun, so that
// Flink's own clients — its SQL client in gateway mode, its JDBC driver,
// anything that speaks the REST API — run statements on tablerun.
//
// Every session is its own core.TableEnvironment, opened with the
// session's properties; every statement is an operation that runs on a
// goroutine of its own, and its result is handed out page by page with
// Flink's token protocol (NOT_READY while the statement runs, PAYLOAD
// pages, EOS), as JSON values (Flink's RowDataToJsonConverters forms) or
// PLAIN_TEXT (tablerun's printed forms), with the changelog kind of every
// row. A streaming result is read from core.TableResult's ChangeBatches as
// the client fetches: the job waits while nobody fetches, so memory stays
// bounded, and closing the operation ends the job. Errors are Flink's
// ErrorResponseBody ({"errors": [...]}) with the exception chain whose root
// cause is what Flink's SQL client prints. Sessions expire after
// sql-gateway.session.idle-timeout without a request (checked every
// sql-gateway.session.check-interval); at most sql-gateway.session.max-num
// are open. There is no engine logic here: statements go to the
// TableEnvironment as they come.
//
//	srv := gateway.New(gateway.Options{})
//	defer srv.Close()
//	http.Serve(listener, srv)
package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/internal/shell"
)

// Defaults of Flink's gateway options.
const (
	// DefaultIdleTimeout is sql-gateway.session.idle-timeout.
	DefaultIdleTimeout = 10 * time.Minute
	// DefaultCheckInterval is sql-gateway.session.check-interval.
	DefaultCheckInterval = time.Minute
	// DefaultMaxSessions is sql-gateway.session.max-num.
	DefaultMaxSessions = 1000000
	// DefaultMaxBodyBytes is rest.server.max-content-length (100 MiB).
	DefaultMaxBodyBytes = 104857600
	// FlinkVersion is the Flink release whose REST API this serves (the
	// /info version).
	FlinkVersion = "2.3.0"
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// IdleTimeout closes a session after that long without a request
	// (DefaultIdleTimeout; negative: never).
	IdleTimeout time.Duration
	// CheckInterval is how often idle sessions are looked for
	// (DefaultCheckInterval).
	CheckInterval time.Duration
	// MaxSessions bounds the open sessions (DefaultMaxSessions; negative:
	// no bound).
	MaxSessions int
	// MaxBodyBytes bounds a request body (DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Token, when set, is the bearer token every request must carry
	// ("Authorization: Bearer <token>").
	Token string
	// Settings are the settings every session starts from before its
	// properties (core.InStreamingMode() by default, Flink's default).
	Settings func() core.EnvironmentSettings
	// FetchWait is how long a fetch waits for new rows before it answers
	// an empty page (500 ms).
	FetchWait time.Duration
	// PageRows bounds the rows of one page (5000, Flink's result buffer).
	PageRows int
	// Logf, when set, logs sessions opened, closed and expired.
	Logf func(format string, args ...any)
	// Stdout and Stderr are where the sessions' print connectors write (a
	// Flink TaskManager's .out and .err); nil discards.
	Stdout, Stderr io.Writer
}

// Server is the REST endpoint. It is an http.Handler.
type Server struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool

	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// New returns a server with the given options and starts its idle-session
// checker (stopped by Close).
func New(opts Options) *Server {
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = DefaultCheckInterval
	}
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Settings == nil {
		opts.Settings = core.InStreamingMode
	}
	if opts.FetchWait <= 0 {
		opts.FetchWait = 500 * time.Millisecond
	}
	if opts.PageRows <= 0 {
		opts.PageRows = 5000
	}
	s := &Server{opts: opts, sessions: map[string]*session{}, stop: make(chan struct{}), stopped: make(chan struct{})}
	go s.expire()
	return s
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// Sessions returns the number of open sessions.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Close closes every session (ending their statements and jobs) and stops
// the idle checker. Requests after Close fail.
func (s *Server) Close() error {
	s.once.Do(func() {
		close(s.stop)
		<-s.stopped
		s.mu.Lock()
		s.closed = true
		all := make([]*session, 0, len(s.sessions))
		for _, ss := range s.sessions {
			all = append(all, ss)
		}
		s.sessions = map[string]*session{}
		s.mu.Unlock()
		for _, ss := range all {
			ss.close()
		}
	})
	return nil
}

// expire closes the sessions idle for longer than IdleTimeout, every
// CheckInterval (Flink's SessionManagerImpl).
func (s *Server) expire() {
	defer close(s.stopped)
	if s.opts.IdleTimeout < 0 {
		<-s.stop
		return
	}
	t := time.NewTicker(s.opts.CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		var idle []*session
		s.mu.Lock()
		timeout := s.opts.IdleTimeout
		for h, ss := range s.sessions {
			if timeout > 0 && now.Sub(ss.lastAccess()) > timeout {
				idle = append(idle, ss)
				delete(s.sessions, h)
			}
		}
		s.mu.Unlock()
		for _, ss := range idle {
			s.logf("session %s expired after %s idle", ss.handle, timeout)
			ss.close()
		}
	}
}

// setIdleTimeout changes the idle timeout of a running server (tests).
func (s *Server) setIdleTimeout(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.IdleTimeout = d
}

// Versions are the REST API versions served, oldest first.
var Versions = []string{"V1", "V2", "V3", "V4"}

var (
	versionRE = regexp.MustCompile(`^/v([0-9]+)(/.*)$`)
	uuidRE    = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// ServeHTTP routes a request. A panic in a handler becomes a 500 answer
// in Flink's error body; the server goes on.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logf("panic serving %s %s: %v\n%s", r.Method, r.URL.Path, p, debug.Stack())
			writeError(w, errInternal(fmt.Sprintf("%s: internal error: %v", core.ClassTable, p)))
		}
	}()
	if s.opts.Token != "" && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="tablerun gateway"`)
		writeError(w, &restError{http.StatusUnauthorized, []string{"Unauthorized: a valid bearer token is required."}})
		return
	}
	if e := s.route(w, r); e != nil {
		writeError(w, e)
	}
}

func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.opts.Token)) == 1
}

// request is a routed request: its API version (1..4) and path segments
// after the version.
type request struct {
	r       *http.Request
	w       http.ResponseWriter
	version int
	parts   []string
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) *restError {
	path := r.URL.Path
	version := len(Versions) // unversioned paths are the newest version
	if m := versionRE.FindStringSubmatch(path); m != nil {
		v, err := strconv.Atoi(m[1])
		if err != nil || v < 1 || v > len(Versions) {
			return errNotFound(path)
		}
		version, path = v, m[2]
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	q := &request{r: r, w: w, version: version, parts: parts}
	method := r.Method
	switch {
	case len(parts) == 1 && parts[0] == "api_versions" && method == http.MethodGet:
		writeJSON(w, 200, map[string][]string{"versions": Versions})
		return nil
	case len(parts) == 1 && parts[0] == "info" && method == http.MethodGet:
		writeJSON(w, 200, map[string]string{"productName": "tablerun", "version": FlinkVersion})
		return nil
	case len(parts) == 1 && parts[0] == "sessions" && method == http.MethodPost:
		return s.openSession(q)
	case len(parts) >= 2 && parts[0] == "workflow" && parts[1] == "embedded-scheduler" && method == http.MethodPost && version >= 3:
		return errInternal(classGateway + ": not supported yet: the embedded workflow scheduler of materialized tables (" + r.URL.Path + ")")
	case len(parts) < 2 || parts[0] != "sessions":
		return errNotFound(r.URL.Path)
	}
	// /sessions/:session_handle/...
	rest := parts[2:]
	var handler func(*request, string) *restError
	switch {
	case len(rest) == 0 && method == http.MethodGet:
		handler = s.getSessionConfig
	case len(rest) == 0 && method == http.MethodDelete:
		handler = s.closeSession
	case len(rest) == 1 && rest[0] == "heartbeat" && method == http.MethodPost:
		handler = s.heartbeat
	case len(rest) == 1 && rest[0] == "configure-session" && method == http.MethodPost && version >= 2:
		handler = s.configureSession
	case len(rest) == 1 && rest[0] == "complete-statement" && method == http.MethodGet && version >= 2:
		handler = s.completeStatement
	case len(rest) == 1 && rest[0] == "statements" && method == http.MethodPost:
		handler = s.executeStatement
	case len(rest) == 1 && rest[0] == "scripts" && method == http.MethodPost && version >= 3,
		len(rest) == 3 && rest[0] == "materialized-tables" && rest[2] == "refresh" && method == http.MethodPost && version >= 3:
		handler = func(q *request, h string) *restError {
			what := "deploying a script in application mode"
			if rest[0] == "materialized-tables" {
				what = "refreshing a materialized table"
			}
			return errInternal(classGateway + ": not supported yet: " + what + " (" + r.URL.Path + ")")
		}
	case len(rest) == 3 && rest[0] == "operations" && rest[2] == "status" && method == http.MethodGet,
		len(rest) == 3 && rest[0] == "operations" && rest[2] == "cancel" && method == http.MethodPost,
		len(rest) == 3 && rest[0] == "operations" && rest[2] == "close" && method == http.MethodDelete,
		len(rest) == 4 && rest[0] == "operations" && rest[2] == "result" && method == http.MethodGet:
		handler = s.operationRequest
	default:
		return errNotFound(r.URL.Path)
	}
	if !uuidRE.MatchString(parts[1]) {
		return errBadParameter("path", "session_handle", parts[1])
	}
	return handler(q, strings.ToLower(parts[1]))
}

// readBody decodes the JSON request body into v (an empty body is an
// empty object, as Flink's REST layer takes it).
func (s *Server) readBody(q *request, bodyType string, v any) *restError {
	b, err := io.ReadAll(http.MaxBytesReader(q.w, q.r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return &restError{http.StatusRequestEntityTooLarge, []string{fmt.Sprintf(
				"%s: Request entity too large: the request body is larger than %d bytes (rest.server.max-content-length).", classRestHandler, mb.Limit)}}
		}
		return errBadBody(bodyType, err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		b = []byte("{}")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errBadBody(bodyType, err)
	}
	return nil
}

// flexString takes a JSON string, number or boolean as text (Jackson
// coerces scalars into a String field) and null as "".
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*f = ""
	case string:
		*f = flexString(x)
	case float64, bool:
		*f = flexString(strings.TrimSpace(string(b)))
	default:
		return fmt.Errorf("cannot deserialize a String from %s", jsonKind(v))
	}
	return nil
}

// flexMap is a map of strings whose values may be JSON scalars.
type flexMap map[string]flexString

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an Array value"
	case map[string]any:
		return "an Object value"
	}
	return "a value"
}

// jsonMarshal is json.Marshal without HTML escaping (as Jackson writes
// '<' and '>').
func jsonMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func newHandle() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (s *Server) openSession(q *request) *restError {
	var body struct {
		SessionName flexString `json:"sessionName"`
		Properties  flexMap    `json:"properties"`
	}
	if e := s.readBody(q, "OpenSessionRequestBody", &body); e != nil {
		return e
	}
	settings := s.opts.Settings()
	keys := make([]string, 0, len(body.Properties))
	for k := range body.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := string(body.Properties[k])
		if err := config.Validate(k, v); err != nil {
			return errInternal(classGateway+": Failed to openSession.", classValidation+": Invalid value for the session property '"+k+"': "+err.Error())
		}
		settings = settings.WithOption(k, v)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errInternal(classGateway+": Failed to openSession.", classGateway+": The gateway is shutting down.")
	}
	if s.opts.MaxSessions > 0 && len(s.sessions) >= s.opts.MaxSessions {
		s.mu.Unlock()
		return errInternal(classGateway+": Failed to openSession.",
			fmt.Sprintf("%s: Failed to create session, the count of active sessions exceeds the max count: %d", classGateway, s.opts.MaxSessions))
	}
	ss := newSession(newHandle(), string(body.SessionName), settings, s.opts.Stdout, s.opts.Stderr)
	s.sessions[ss.handle] = ss
	s.mu.Unlock()
	s.logf("session %s opened", ss.handle)
	writeJSON(q.w, 200, map[string]string{"sessionHandle": ss.handle})
	return nil
}

// session returns the open session h, touching it.
func (s *Server) session(h string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[h]
	if ss != nil {
		ss.touch()
	}
	return ss
}

func (s *Server) closeSession(q *request, h string) *restError {
	s.mu.Lock()
	ss := s.sessions[h]
	delete(s.sessions, h)
	s.mu.Unlock()
	if ss == nil {
		return errHandler("closeSession", sessionMissing(h))
	}
	ss.close()
	s.logf("session %s closed", h)
	writeJSON(q.w, 200, map[string]string{"status": "CLOSED"})
	return nil
}

func (s *Server) heartbeat(q *request, h string) *restError {
	if s.session(h) == nil {
		// Flink's heartbeat handler reports it so
		return errHandler("getSessionConfig", sessionMissing(h))
	}
	writeRaw(q.w, 200, []byte("{}"))
	return nil
}

func (s *Server) getSessionConfig(q *request, h string) *restError {
	ss := s.session(h)
	if ss == nil {
		return errHandler("getSessionConfig", sessionMissing(h))
	}
	props := map[string]string{}
	for _, e := range ss.env.Config().Explicit() {
		props[e.Key] = e.Value
	}
	writeJSON(q.w, 200, map[string]any{"properties": props})
	return nil
}

// configureStatements are the statement kinds configure-session runs
// (Flink's OperationExecutor.configureSession), by first keyword.
var configureStatements = map[string]bool{
	"SET": true, "RESET": true, "CREATE": true, "DROP": true, "ALTER": true,
	"USE": true, "LOAD": true, "UNLOAD": true, "ADD": true,
}

const configureKinds = "SET, RESET, CREATE TABLE, CREATE VIEW, CREATE DATABASE, CREATE FUNCTION, CREATE TEMPORARY SYSTEM FUNCTION, CREATE CATALOG, CREATE MODEL, CREATE MATERIALIZED TABLE, DROP TABLE, DROP VIEW, DROP DATABASE, DROP FUNCTION, DROP TEMPORARY SYSTEM FUNCTION, DROP CATALOG, DROP MODEL, DROP MATERIALIZED TABLE, ALTER TABLE, ALTER VIEW, ALTER DATABASE, ALTER FUNCTION, ALTER CATALOG SET, ALTER CATALOG RESET, ALTER CATALOG COMMENT, ALTER MODEL, ALTER MODEL, ALTER MATERIALIZED TABLE, USE CATALOG, USE [CATALOG.]DATABASE, USE MODULES, LOAD MODULE, UNLOAD MODULE, ADD JAR"

func (s *Server) configureSession(q *request, h string) *restError {
	var body struct {
		Statement        flexString `json:"statement"`
		ExecutionTimeout *int64     `json:"executionTimeout"`
	}
	if e := s.readBody(q, "ConfigureSessionRequestBody", &body); e != nil {
		return e
	}
	ss := s.session(h)
	if ss == nil {
		return errInternal(classGateway+": Failed to configure session.", sessionMissing(h))
	}
	stmt := string(body.Statement)
	opID := newHandle()
	fail := func(causes ...string) *restError {
		return errInternal(append([]string{classGateway + ": Failed to configure session.",
			classSQLExecution + ": Failed to execute the operation " + opID + "."}, causes...)...)
	}
	if !configureStatements[firstWord(stmt)] {
		return fail(classUnsupportedOp + ": Unsupported statement for configuring session: " + stmt +
			"\nThe configureSession API only supports executing statements of type " + configureKinds + ".")
	}
	ctx := q.r.Context()
	if body.ExecutionTimeout != nil && *body.ExecutionTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*body.ExecutionTimeout)*time.Millisecond)
		defer cancel()
	}
	res, err := ss.execute(ctx, stmt, nil)
	if err != nil {
		return fail(statementCauses(err)...)
	}
	_ = res.Close()
	writeRaw(q.w, 200, []byte("{}"))
	return nil
}

// firstWord is the upper-cased first keyword of a statement, after
// comments and parentheses.
func firstWord(stmt string) string {
	t := stmt
	for {
		t = strings.TrimLeft(t, " \t\r\n(")
		switch {
		case strings.HasPrefix(t, "--"):
			i := strings.IndexByte(t, '\n')
			if i < 0 {
				return ""
			}
			t = t[i+1:]
		case strings.HasPrefix(t, "/*"):
			i := strings.Index(t, "*/")
			if i < 0 {
				return ""
			}
			t = t[i+2:]
		default:
			end := strings.IndexFunc(t, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_')
			})
			if end < 0 {
				end = len(t)
			}
			return strings.ToUpper(t[:end])
		}
	}
}

func (s *Server) completeStatement(q *request, h string) *restError {
	var body struct {
		Statement flexString `json:"statement"`
		Position  *int       `json:"position"`
	}
	if e := s.readBody(q, "CompleteStatementRequestBody", &body); e != nil {
		return e
	}
	if body.Position == nil {
		return &restError{http.StatusBadRequest, []string{chain([]string{
			classRestHandler + ": Bad request received. Request did not conform to expected format.",
			classJSONMismatch + ": Cannot map `null` into type `int` (through reference chain: CompleteStatementRequestBody[\"position\"])",
		})}}
	}
	ss := s.session(h)
	if ss == nil {
		return errHandler("completeStatement", sessionMissing(h))
	}
	stmt := string(body.Statement)
	pos := min(max(*body.Position, 0), len(stmt))
	matches, _, _ := shell.Completions(ss.env, stmt, pos)
	if matches == nil {
		matches = []string{}
	}
	writeJSON(q.w, 200, map[string][]string{"candidates": matches})
	return nil
}

func (s *Server) executeStatement(q *request, h string) *restError {
	var body struct {
		Statement        flexString `json:"statement"`
		ExecutionTimeout *int64     `json:"executionTimeout"`
		ExecutionConfig  flexMap    `json:"executionConfig"`
	}
	if e := s.readBody(q, "ExecuteStatementRequestBody", &body); e != nil {
		return e
	}
	ss := s.session(h)
	if ss == nil {
		return errInternal(classGateway+": Failed to execute statement.", sessionMissing(h))
	}
	var timeout time.Duration
	if body.ExecutionTimeout != nil && *body.ExecutionTimeout > 0 {
		timeout = time.Duration(*body.ExecutionTimeout) * time.Millisecond
	}
	conf := map[string]string{}
	for k, v := range body.ExecutionConfig {
		conf[k] = string(v)
	}
	op, err := ss.submit(string(body.Statement), conf, timeout)
	if err != nil {
		return errInternal(classGateway+": Failed to execute statement.", classGateway+": "+err.Error())
	}
	writeJSON(q.w, 200, map[string]string{"operationHandle": op.handle})
	return nil
}

// operationRequest serves /sessions/:h/operations/:op/{status,cancel,close,result/:token}.
func (s *Server) operationRequest(q *request, h string) *restError {
	rest := q.parts[2:]
	opID, action := rest[1], rest[2]
	if !uuidRE.MatchString(opID) {
		return errBadParameter("path", "operation_handle", opID)
	}
	opID = strings.ToLower(opID)
	var token int64
	format := formatJSON
	if action == "result" {
		t, err := strconv.ParseInt(rest[3], 10, 64)
		if err != nil {
			return errBadParameter("path", "token", rest[3])
		}
		token = t
		if f := q.r.URL.Query().Get("rowFormat"); f != "" && q.version >= 2 {
			if f != formatJSON && f != formatPlain {
				return errBadParameter("query", "rowFormat", f)
			}
			format = f
		}
	}
	ss := s.session(h)
	if ss == nil {
		switch action {
		case "status":
			return errHandler("getOperationInfo", sessionMissing(h))
		case "cancel":
			return errHandler("cancelOperation", sessionMissing(h))
		case "close":
			return errHandler("closeOperation", sessionMissing(h))
		}
		return errInternal(classGateway+": "+classGateway+": Failed to fetchResults.", classGateway+": Failed to fetchResults.", sessionMissing(h))
	}
	switch action {
	case "status":
		op := ss.operation(opID)
		if op == nil {
			return errHandler("getOperationInfo", operationMissing(opID))
		}
		st, _, _ := op.state()
		writeJSON(q.w, 200, map[string]string{"status": st})
	case "cancel":
		op := ss.operation(opID)
		if op == nil {
			return errHandler("cancelOperation", operationMissing(opID))
		}
		if err := ss.cancel(op); err != nil {
			return errHandler("cancelOperation", classGateway+": "+err.Error())
		}
		writeJSON(q.w, 200, map[string]string{"status": statusCanceled})
	case "close":
		// Flink answers CLOSED for an operation it does not know, too
		ss.closeOperation(opID)
		writeJSON(q.w, 200, map[string]string{"status": statusClosed})
	case "result":
		return s.fetchResults(q, ss, opID, token, format)
	}
	return nil
}

func (s *Server) fetchResults(q *request, ss *session, opID string, token int64, format string) *restError {
	fail := func(causes ...string) *restError {
		return errInternal(append([]string{classGateway + ": " + classGateway + ": Failed to fetchResults.", classGateway + ": Failed to fetchResults."}, causes...)...)
	}
	op := ss.operation(opID)
	if op == nil {
		return fail(operationMissing(opID))
	}
	next := func(t int64) string {
		u := fmt.Sprintf("/v%d/sessions/%s/operations/%s/result/%d", q.version, ss.handle, opID, t)
		if q.version >= 2 {
			u += "?rowFormat=" + format
		}
		return u
	}
	status, err, f := op.state()
	switch status {
	case statusPending, statusRunning:
		if token != 0 {
			return fail(classSQLExecution + ": " + fmt.Sprintf("Expecting token to be 0, but found %d.", token))
		}
		writeJSON(q.w, 200, map[string]string{"resultType": "NOT_READY", "nextResultUri": next(0)})
		return nil
	case statusError:
		return fail(append([]string{classSQLExecution + ": Failed to execute the operation " + opID + "."}, statementCauses(err)...)...)
	case statusCanceled:
		return fail(classSQLExecution + ": The operation " + opID + " has been canceled.")
	case statusClosed:
		return fail(operationMissing(opID))
	}
	r, ferr := f.fetchPage(q.r.Context(), token, format, s.opts.PageRows, s.opts.FetchWait)
	if ferr != nil {
		var je *javaError
		if errors.As(ferr, &je) {
			return fail(je.cause())
		}
		if q.r.Context().Err() != nil {
			return nil // the client went away
		}
		return fail(classSQLExecution+": Error while retrieving result.", core.Reason(ferr))
	}
	writeRaw(q.w, 200, f.pageJSON(r, format, next(r.next)))
	return nil
}
