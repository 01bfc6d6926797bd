// Package flightsql serves tablerun over Arrow Flight SQL (`tablerun
// flight-sql`), built on arrow-go's own flight/flightsql server: Python's
// ADBC driver, pyarrow.flight, JDBC/ODBC Flight SQL drivers and arrow-go's
// client query a tablerun session and get Arrow record batches as the job
// produces them. It is a client of core like the shell and the kernel: no
// engine logic lives here.
//
// Sessions: every gRPC connection (a client's channel: one ADBC
// connection, one pyarrow FlightClient) gets its own
// core.TableEnvironment, made on its first call and closed, with the jobs
// it still runs, when the connection ends. Sessions start in batch mode
// (final results, as the Jupyter kernel's); SET 'execution.runtime-mode'
// = 'streaming' switches one, and -D options of the command apply to
// every new session.
//
// Statements: a query (CommandStatementQuery, or a prepared one) is
// validated in GetFlightInfo, whose FlightInfo carries the result's
// schema; DoGet runs it and streams each batch of the job's last operator
// as an Arrow record batch (core.Table.ExecuteArrowChanges: no rows are
// made) through an unbuffered channel, so an unbounded streaming query
// runs in bounded memory and the client's cancel (or the end of its
// connection) stops the job. In streaming mode the result is a changelog:
// a first column "op" holds each row's kind (+I, -U, +U, -D), as in
// `tablerun --format arrow`. Other statements (DDL, SET, INSERT, SHOW,
// EXPLAIN) run when they arrive: through GetFlightInfo, whose ticket then
// reads their result table (Flink's "result" = OK for DDL), or through
// CommandStatementUpdate (count -1: Flink does not count rows).
//
// Errors are gRPC status errors whose message is the Reason Flink's SQL
// client prints, followed by tablerun's position lines (Calcite's "From
// line l, column c …", the source line, carets, the hint).
package flightsql

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/tablerun/tablerun/core"
)

// Options configure a Server.
type Options struct {
	// Token, when not empty, is the bearer token every call must carry
	// ("authorization: Bearer <token>"); other calls fail with
	// Unauthenticated.
	Token string
	// Settings are the settings of each new session (default: batch mode).
	Settings *core.EnvironmentSettings
	// Init runs on each new session before its first statement (the
	// command's -i script); an error fails the call that opened the
	// session.
	Init func(ctx context.Context, env *core.TableEnvironment) error
	// Version is reported as FLIGHT_SQL_SERVER_VERSION.
	Version string
	// Log, when set, gets a line for each session whose Init failed.
	Log io.Writer
}

// Server is a Flight SQL server over tablerun sessions.
type Server struct {
	flightsql.BaseServer
	opts  Options
	alloc memory.Allocator
	grpc  *grpc.Server
	lis   net.Listener

	mu       sync.Mutex
	sessions map[uint64]*session
	handles  map[string]*statement
	nextID   uint64

	running atomic.Int64 // queries streaming right now (DoGet)
}

// New returns a server; Serve or Listen starts it.
func New(opts Options) (*Server, error) {
	s := &Server{
		opts:     opts,
		alloc:    memory.NewGoAllocator(),
		sessions: map[uint64]*session{},
		handles:  map[string]*statement{},
	}
	s.Alloc = s.alloc
	if err := s.registerSQLInfo(); err != nil {
		return nil, err
	}
	gopts := []grpc.ServerOption{grpc.StatsHandler(connTracker{s})}
	if opts.Token != "" {
		gopts = append(gopts, grpc.ChainUnaryInterceptor(s.authUnary), grpc.ChainStreamInterceptor(s.authStream))
	}
	s.grpc = grpc.NewServer(gopts...)
	flight.RegisterFlightServiceServer(s.grpc, flightsql.NewFlightServerWithAllocator(s, s.alloc))
	return s, nil
}

// Listen binds addr (host:port; port 0 picks a free one) and serves on a
// goroutine of its own until Shutdown.
func (s *Server) Listen(addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.lis = lis
	go func() { _ = s.grpc.Serve(lis) }()
	return nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() net.Addr { return s.lis.Addr() }

// Shutdown stops accepting calls, cancels the running ones (their
// streams end with CANCELLED), closes every session and waits for the
// calls to return (at most a few seconds, then it drops the connections).
func (s *Server) Shutdown() {
	s.closeAll()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.grpc.Stop()
		<-done
	}
	s.closeAll() // sessions of connections made meanwhile
}

// closeAll closes every session.
func (s *Server) closeAll() {
	s.mu.Lock()
	ids := make([]uint64, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.closeSession(id)
	}
}

// Running returns the number of queries whose results are being streamed.
func (s *Server) Running() int { return int(s.running.Load()) }

// Sessions returns the number of open sessions (connections that made a
// call that needed one).
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, se := range s.sessions {
		if se.envMade.Load() {
			n++
		}
	}
	return n
}

// session is the tablerun session of one client connection.
type session struct {
	id     uint64
	ctx    context.Context // ends with the connection
	cancel context.CancelFunc

	once    sync.Once
	envMade atomic.Bool
	env     *core.TableEnvironment
	initErr error

	mu     sync.Mutex
	recent []string // handles of unprepared statements, oldest first
}

// connKey is the context key of a connection's session id.
type connKey struct{}

// connTracker is the gRPC stats handler that gives each connection a
// session and closes it when the connection ends.
type connTracker struct{ s *Server }

func (c connTracker) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	s := c.s
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	sctx, cancel := context.WithCancel(context.Background())
	s.sessions[id] = &session{id: id, ctx: sctx, cancel: cancel}
	s.mu.Unlock()
	return context.WithValue(ctx, connKey{}, id)
}

func (c connTracker) HandleConn(ctx context.Context, st stats.ConnStats) {
	if _, ok := st.(*stats.ConnEnd); !ok {
		return
	}
	if id, ok := ctx.Value(connKey{}).(uint64); ok {
		c.s.closeSession(id)
	}
}

func (connTracker) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (connTracker) HandleRPC(context.Context, stats.RPCStats)                       {}

// closeSession cancels what the session runs, forgets its statements and
// closes its environment.
func (s *Server) closeSession(id uint64) {
	s.mu.Lock()
	se := s.sessions[id]
	delete(s.sessions, id)
	for h, st := range s.handles {
		if st.sess == se {
			delete(s.handles, h)
		}
	}
	s.mu.Unlock()
	if se == nil {
		return
	}
	se.cancel()
	if se.envMade.Load() {
		_ = se.env.Close()
	}
}

// sessionOf returns the session of the call's connection, making its
// environment on first use.
func (s *Server) sessionOf(ctx context.Context) (*session, error) {
	id, ok := ctx.Value(connKey{}).(uint64)
	s.mu.Lock()
	se := s.sessions[id]
	s.mu.Unlock()
	if !ok || se == nil {
		return nil, status.Error(codes.Unavailable, "the connection's session is closed")
	}
	se.once.Do(func() {
		settings := core.InBatchMode()
		if s.opts.Settings != nil {
			settings = *s.opts.Settings
		}
		se.env = core.NewTableEnvironment(settings)
		se.envMade.Store(true)
		if s.opts.Init != nil {
			se.initErr = s.opts.Init(se.ctx, se.env)
			if se.initErr != nil && s.opts.Log != nil {
				fmt.Fprintf(s.opts.Log, "[ERROR] session %d: %v\n", se.id, se.initErr)
			}
		}
	})
	if se.initErr != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "the session's init script failed: %v", se.initErr)
	}
	return se, nil
}

// statementCtx returns the context a statement runs under: it ends with
// the call (the client cancelled or went away) while the statement runs,
// and with the session; what the statement leaves running (a job of
// 'table.dml-sync' = 'false') lives on with the session only. release
// must be called when the statement returns.
func statementCtx(call context.Context, se *session) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(se.ctx)
	stop := context.AfterFunc(call, cancel)
	return ctx, func() { stop() }
}

// newHandle registers st under a fresh random handle.
func (s *Server) newHandle(st *statement) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	st.handle = h
	s.mu.Lock()
	s.handles[h] = st
	s.mu.Unlock()
	return h
}

// lookup returns the statement of a handle.
func (s *Server) lookup(handle []byte) (*statement, error) {
	s.mu.Lock()
	st := s.handles[string(handle)]
	s.mu.Unlock()
	if st == nil {
		return nil, status.Error(codes.NotFound, "unknown or expired statement handle (statements live as long as the connection that made them)")
	}
	return st, nil
}

// forget drops a handle.
func (s *Server) forget(handle []byte) {
	s.mu.Lock()
	delete(s.handles, string(handle))
	s.mu.Unlock()
}

func (s *Server) checkToken(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		tok, ok := strings.CutPrefix(v, "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1 {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "tablerun flight-sql: missing or wrong bearer token (send the header \"authorization: Bearer <token>\")")
}

func (s *Server) authUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := s.checkToken(ctx); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (s *Server) authStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := s.checkToken(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

// statusError turns a statement's error into a gRPC status error: the
// Reason Flink's client prints, then the position lines for text.
func statusError(err error, text string) error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	isCore := errors.As(err, &ce)
	if _, ok := status.FromError(err); ok && !isCore {
		return err
	}
	code := codes.Internal
	if isCore {
		switch ce.Kind {
		case core.KindParse, core.KindValidation, core.KindCatalog:
			code = codes.InvalidArgument
		case core.KindUnsupported:
			code = codes.Unimplemented
		case core.KindPlanner, core.KindExecution:
			code = codes.Aborted
		}
	}
	if core.IsCanceled(err) {
		code = codes.Canceled
	}
	msg := core.Reason(err)
	if c := core.ErrorContext(err, text); c != "" {
		msg += "\n" + c
	}
	return status.Error(code, strings.TrimRight(msg, "\n"))
}

func (s *Server) String() string { return fmt.Sprintf("tablerun Flight SQL server on %s", s.Addr()) }
