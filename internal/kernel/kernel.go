// Package kernel is tablerun's Jupyter kernel: the Jupyter messaging
// protocol (version 5.3) over ZeroMQ (github.com/go-zeromq/zmq4, pure Go)
// with HMAC-SHA256 signed messages, on the five channels of a connection
// file (shell, control, iopub, stdin, heartbeat). Main is the `tablerun
// kernel` command; Install writes the kernelspec.
//
// Cells are Flink SQL: the statements of a cell (';'-separated; the last
// ';' may be omitted) run one after the other in one TableEnvironment per
// kernel (batch mode). The last statement's outcome is the cell's
// execute_result, earlier ones are display_data; query and SHOW/DESCRIBE
// results render as an HTML table (text/html) and in the SQL client's
// tableau layout (text/plain), other statements as the client's "[INFO] …"
// line. A cell whose first line is "%%python [module]" or "%%javascript
// [module]" defines a module of user-defined functions (default module
// name: notebook) that CREATE FUNCTION f(…) RETURNS … LANGUAGE PYTHON AS
// 'module.f' then declares. A first line "%chart bar|line|scatter x=… y=…" adds an SVG chart of
// the last result (see ChartSpec). A first line "%time [label]" times the
// cell (wall time, rows read by its sources) and records the figures in
// the temporary table cell_timings (see TimingsTable); a %chart line may
// follow it. A streaming query (SET
// 'execution.runtime-mode' = 'streaming') shows its materialized result
// live: a display_data with a display id, then update_display_data messages
// (no later than 100 ms after a change, never between a -U and its +U;
// only the current rows are kept, at most
// sql-client.execution.max-table-result.rows of them, and the first 1000
// are shown) until the job ends or the cell is interrupted.
//
// The first failing statement stops the cell with an error message (ename:
// the Flink exception class, evalue: its message, traceback: the SQL
// client's "[ERROR] …" lines). A cell that is just HELP; opens the help text
// in Jupyter's pager (a "page" payload). What the print connector writes is
// sent as stream output (stdout, or stderr with 'standard-error').
//
// Requests: kernel_info, execute, complete (keywords, functions, tables,
// columns), inspect (DESCRIBE of the table under the cursor, or a
// function's documentation), is_complete, history (tail, range and search
// over this kernel's cells), comm_info, interrupt (control channel; SIGINT
// does the same: the running statement is cancelled) and shutdown. Other
// requests get an error reply "not supported yet: …".
package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tablerun/tablerun/udf/js"
	"github.com/tablerun/tablerun/udf/python"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/internal/shell"
	"github.com/tablerun/tablerun/planner/parser"
)

// Version is the kernel's implementation version.
const Version = "0.1.0"

// Run serves the kernel described by connectionFile until a
// shutdown_request arrives or ctx ends. SIGINT cancels the running
// statement instead of stopping the kernel.
func Run(ctx context.Context, connectionFile string) error {
	return RunWith(ctx, connectionFile, nil)
}

// RunWith is Run with initial session options (the kernel's -D flags):
// they apply on top of the kernel's defaults (batch mode, tableau
// results), so `-D execution.runtime-mode=streaming` starts a streaming
// session. The kernel also ends when the process that started it (Jupyter)
// dies: it watches its parent process.
func RunWith(ctx context.Context, connectionFile string, options map[string]string) error {
	ci, err := ReadConnectionFile(connectionFile)
	if err != nil {
		return err
	}
	settings := core.InBatchMode().
		WithOption("sql-client.execution.result-mode", "tableau").
		WithOption("sql-client.display.print-time-cost", "false")
	for k, v := range options {
		settings = settings.WithOption(k, v)
	}
	env := core.NewTableEnvironment(settings)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go watchParent(ctx, cancel, time.Second)
	k := New(ci, env, log.New(os.Stderr, "tablerun kernel: ", log.LstdFlags))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			k.Interrupt()
		}
	}()
	return k.Serve(ctx)
}

// Kernel is one kernel process's state: its sockets and its SQL session.
type Kernel struct {
	ci      ConnectionInfo
	sg      signer
	session string
	env     *core.TableEnvironment
	logger  *log.Logger

	iopub   zmq4.Socket
	iopubMu sync.Mutex
	hist    history

	// mu guards the fields below.
	mu        sync.Mutex
	execCount int
	// cancel cancels the running cell (nil when idle).
	cancel context.CancelFunc
	// current is the execute_request being run: the parent of stream
	// output.
	current *Message
	// stop ends Serve (after a shutdown_request).
	stop context.CancelFunc
	// scripts is the directory of the %%python / %%javascript modules
	// ("" until the first such cell).
	scripts string
	// timings are the rows of TimingsTable (%time cells).
	timings []timing
}

// New returns a kernel for the connection ci running SQL on env. Logs
// (protocol problems, bad signatures) go to logger.
func New(ci ConnectionInfo, env *core.TableEnvironment, logger *log.Logger) *Kernel {
	k := &Kernel{ci: ci, sg: signer{key: []byte(ci.Key)}, session: newID(), env: env, logger: logger}
	env.SetOutput(&streamWriter{k: k, name: "stdout"}, &streamWriter{k: k, name: "stderr"})
	// what script UDFs print (Python's print and sys.stdout/stderr,
	// JavaScript's console) goes to the running cell, and to the kernel's
	// stderr (its log) between cells
	udfOut := &udfWriter{streamWriter{k: k, name: "stdout"}}
	python.SetOutput(udfOut)
	js.SetOutput(udfOut)
	return k
}

// udfWriter is the output of script UDFs: the current cell's stdout
// stream, or the process's stderr when no cell runs (a background job).
type udfWriter struct{ streamWriter }

func (w *udfWriter) Write(p []byte) (int, error) {
	w.k.mu.Lock()
	running := w.k.current != nil
	w.k.mu.Unlock()
	if !running {
		return os.Stderr.Write(p)
	}
	return w.streamWriter.Write(p)
}

// Interrupt cancels the running cell, if any.
func (k *Kernel) Interrupt() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cancel != nil {
		k.cancel()
	}
}

// Serve binds the sockets and answers requests until a shutdown_request or
// the end of ctx.
func (k *Kernel) Serve(ctx context.Context) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	k.mu.Lock()
	k.stop = stop
	k.mu.Unlock()

	shellSock := zmq4.NewRouter(ctx)
	control := zmq4.NewRouter(ctx)
	stdin := zmq4.NewRouter(ctx)
	k.iopub = zmq4.NewPub(ctx)
	hb := zmq4.NewRep(ctx)
	socks := []struct {
		s    zmq4.Socket
		port int
		name string
	}{
		{shellSock, k.ci.ShellPort, "shell"}, {control, k.ci.ControlPort, "control"},
		{stdin, k.ci.StdinPort, "stdin"}, {k.iopub, k.ci.IOPubPort, "iopub"}, {hb, k.ci.HBPort, "heartbeat"},
	}
	defer func() {
		for _, s := range socks {
			_ = s.s.Close()
		}
	}()
	for _, s := range socks {
		if err := s.s.Listen(k.ci.listenEndpoint(s.port)); err != nil {
			return fmt.Errorf("listen on %s port %d: %w", s.name, s.port, err)
		}
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); k.heartbeat(ctx, hb) }()
	go func() { defer wg.Done(); k.serveChannel(ctx, shellSock) }()
	go func() { defer wg.Done(); k.serveChannel(ctx, control) }()
	// Publish the starting status, as kernels do when they come up.
	k.publish(nil, "status", map[string]any{"execution_state": "starting"})
	<-ctx.Done()
	for _, s := range socks {
		_ = s.s.Close()
	}
	wg.Wait()
	k.mu.Lock()
	if k.scripts != "" {
		_ = os.RemoveAll(k.scripts)
	}
	k.mu.Unlock()
	return nil
}

// heartbeat echoes every ping.
func (k *Kernel) heartbeat(ctx context.Context, hb zmq4.Socket) {
	for ctx.Err() == nil {
		msg, err := hb.Recv()
		if err != nil {
			return
		}
		if err := hb.Send(msg); err != nil {
			return
		}
	}
}

// serveChannel answers the requests of the shell or control channel, one
// at a time.
func (k *Kernel) serveChannel(ctx context.Context, sock zmq4.Socket) {
	for ctx.Err() == nil {
		raw, err := sock.Recv()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, io.EOF) {
				k.logf("receive: %v", err)
			}
			if ctx.Err() != nil {
				return
			}
			continue
		}
		msg, err := k.sg.decode(raw.Frames)
		if err != nil {
			k.logf("dropped a message: %v", err)
			continue
		}
		if k.handle(ctx, sock, msg) {
			// Let the reply and the idle status leave before the sockets
			// close.
			time.Sleep(100 * time.Millisecond)
			k.mu.Lock()
			stop := k.stop
			k.mu.Unlock()
			if stop != nil {
				stop()
			}
			return
		}
	}
}

func (k *Kernel) logf(format string, args ...any) {
	if k.logger != nil {
		k.logger.Printf(format, args...)
	}
}

// send signs and sends a message on a ROUTER socket.
func (k *Kernel) send(sock zmq4.Socket, m *Message) {
	frames, err := k.sg.encode(m)
	if err != nil {
		k.logf("%v", err)
		return
	}
	if err := sock.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		k.logf("send %s: %v", m.Header.MsgType, err)
	}
}

// publish sends a message on iopub; parent may be nil.
func (k *Kernel) publish(parent *Message, msgType string, content any) {
	c, err := json.Marshal(content)
	if err != nil {
		k.logf("encode %s: %v", msgType, err)
		return
	}
	m := &Message{Header: newHeader(k.session, msgType), Parent: json.RawMessage("{}"), Metadata: json.RawMessage("{}"), Content: c}
	if parent != nil {
		if r, err := reply(k.session, parent, msgType, content); err == nil {
			m = r
		}
	}
	m.Identities = [][]byte{[]byte(msgType)}
	frames, err := k.sg.encode(m)
	if err != nil {
		k.logf("%v", err)
		return
	}
	k.iopubMu.Lock()
	defer k.iopubMu.Unlock()
	if k.iopub == nil {
		return
	}
	if err := k.iopub.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		k.logf("publish %s: %v", msgType, err)
	}
}

// respond sends the reply to req on sock.
func (k *Kernel) respond(sock zmq4.Socket, req *Message, msgType string, content any) {
	r, err := reply(k.session, req, msgType, content)
	if err != nil {
		k.logf("%v", err)
		return
	}
	k.send(sock, r)
}

// handle answers one request, between "busy" and "idle" status messages.
// It reports whether the request was a shutdown_request.
func (k *Kernel) handle(ctx context.Context, sock zmq4.Socket, msg *Message) (shutdown bool) {
	k.publish(msg, "status", map[string]any{"execution_state": "busy"})
	defer k.publish(msg, "status", map[string]any{"execution_state": "idle"})
	t := msg.Header.MsgType
	switch t {
	case "kernel_info_request":
		k.respond(sock, msg, "kernel_info_reply", kernelInfo())
	case "execute_request":
		k.respond(sock, msg, "execute_reply", k.execute(ctx, msg))
	case "complete_request":
		k.respond(sock, msg, "complete_reply", k.complete(msg))
	case "inspect_request":
		k.respond(sock, msg, "inspect_reply", k.inspect(msg))
	case "is_complete_request":
		k.respond(sock, msg, "is_complete_reply", isComplete(msg))
	case "history_request":
		k.respond(sock, msg, "history_reply", k.hist.reply(msg.Content))
	case "comm_info_request":
		k.respond(sock, msg, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "interrupt_request":
		k.Interrupt()
		k.respond(sock, msg, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		var req struct {
			Restart bool `json:"restart"`
		}
		_ = json.Unmarshal(msg.Content, &req)
		k.Interrupt()
		k.respond(sock, msg, "shutdown_reply", map[string]any{"status": "ok", "restart": req.Restart})
		shutdown = true
	default:
		if strings.HasSuffix(t, "_request") {
			k.respond(sock, msg, strings.TrimSuffix(t, "_request")+"_reply", map[string]any{
				"status": "error", "ename": "NotSupported", "evalue": "not supported yet: " + t, "traceback": []string{},
			})
		} else {
			k.logf("ignored a %s message", t)
		}
	}
	return shutdown
}

// kernelInfo is the content of kernel_info_reply.
func kernelInfo() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       ProtocolVersion,
		"implementation":         "tablerun",
		"implementation_version": Version,
		"language_info": map[string]any{
			"name":            "sql",
			"version":         "Flink SQL",
			"mimetype":        "text/x-sql",
			"file_extension":  ".sql",
			"pygments_lexer":  "sql",
			"codemirror_mode": "sql",
		},
		"banner":     "tablerun " + Version + " — Flink SQL on a vectorized Arrow engine",
		"help_links": []any{},
		"debugger":   false,
	}
}

// executeRequest is the content of execute_request.
type executeRequest struct {
	Code         string `json:"code"`
	Silent       bool   `json:"silent"`
	StoreHistory *bool  `json:"store_history"`
	StopOnError  *bool  `json:"stop_on_error"`
}

// execute runs a cell and returns the content of execute_reply.
func (k *Kernel) execute(ctx context.Context, msg *Message) map[string]any {
	var req executeRequest
	if err := json.Unmarshal(msg.Content, &req); err != nil {
		return map[string]any{"status": "error", "ename": "BadRequest", "evalue": err.Error(), "traceback": []string{}, "execution_count": k.count()}
	}
	store := req.StoreHistory == nil || *req.StoreHistory
	k.mu.Lock()
	if !req.Silent && store {
		k.execCount++
	}
	n := k.execCount
	cellCtx, cancel := context.WithCancel(ctx)
	k.cancel, k.current = cancel, msg
	k.mu.Unlock()
	defer func() {
		cancel()
		k.mu.Lock()
		k.cancel, k.current = nil, nil
		k.mu.Unlock()
	}()
	if !req.Silent {
		k.publish(msg, "execute_input", map[string]any{"code": req.Code, "execution_count": n})
	}
	if sc, err := parseScriptCell(req.Code); sc != nil || err != nil {
		var text string
		if err == nil {
			if ce := sc.check(); ce != nil {
				return k.failCell(msg, req, n, ce)
			}
			text, err = k.defineModule(sc)
		}
		if err != nil {
			return k.failCell(msg, req, n, &cellError{ename: "ScriptCellError", evalue: err.Error(), traceback: []string{"[ERROR] " + err.Error()}})
		}
		if !req.Silent {
			k.publish(msg, "execute_result", map[string]any{"execution_count": n, "data": map[string]string{"text/plain": text}, "metadata": map[string]any{}})
		}
		if !req.Silent && store {
			k.hist.add(n, req.Code, text)
		}
		return map[string]any{"status": "ok", "execution_count": n, "user_expressions": map[string]any{}, "payload": []any{}}
	}
	label, timed, code, err := parseTimeLine(req.Code)
	if err != nil {
		return k.failCell(msg, req, n, &cellError{ename: "TimeError", evalue: err.Error(), traceback: []string{"[ERROR] " + err.Error()}})
	}
	if timed && label == "" {
		label = fmt.Sprintf("cell %d", n)
	}
	chart, code, err := parseChartLine(code)
	if err != nil {
		return k.failCell(msg, req, n, &cellError{ename: "ChartError", evalue: err.Error(), traceback: []string{"[ERROR] " + err.Error()}})
	}
	if isHelpCell(code) {
		// HELP alone opens Jupyter's pager, as help does in other kernels.
		if !req.Silent && store {
			k.hist.add(n, req.Code, "")
		}
		page := map[string]any{"source": "page", "data": map[string]string{"text/plain": shell.HelpText}, "start": 0}
		return map[string]any{"status": "ok", "execution_count": n, "user_expressions": map[string]any{}, "payload": []any{page}}
	}
	var live liveFunc
	if !req.Silent {
		live = func(first bool, id string, data map[string]string) {
			typ := "update_display_data"
			if first {
				typ = "display_data"
			}
			chartData, table := splitChart(data, chart)
			k.publish(msg, typ, map[string]any{"data": table, "metadata": map[string]any{}, "transient": map[string]any{"display_id": id}})
			if chartData != nil {
				k.publish(msg, "display_data", map[string]any{"data": chartData, "metadata": map[string]any{}, "transient": map[string]any{}})
			}
		}
	}
	lastOut := ""
	emit := func(data map[string]string, last bool) {
		chartData, data := splitChart(data, chart)
		if chartData != nil && !req.Silent {
			k.publish(msg, "display_data", map[string]any{"data": chartData, "metadata": map[string]any{}, "transient": map[string]any{}})
		}
		if last {
			lastOut = data["text/plain"]
		}
		switch {
		case req.Silent:
		case last:
			k.publish(msg, "execute_result", map[string]any{"execution_count": n, "data": data, "metadata": map[string]any{}})
		default:
			k.publish(msg, "display_data", map[string]any{"data": data, "metadata": map[string]any{}, "transient": map[string]any{}})
		}
	}
	runCtx, progress := cellCtx, (*core.Progress)(nil)
	if timed {
		runCtx, progress = core.WithProgress(cellCtx)
	}
	start := time.Now()
	cerr := runCell(runCtx, k.env, code, chart, emit, live)
	if timed && cerr == nil {
		line, err := k.recordTiming(label, time.Since(start), progress.RowsRead())
		if err != nil {
			cerr = &cellError{ename: "TimeError", evalue: err.Error(), traceback: []string{"[ERROR] " + err.Error()}}
		} else if !req.Silent {
			k.publish(msg, "stream", map[string]any{"name": "stdout", "text": line})
		}
	}
	if !req.Silent && store {
		if cerr != nil {
			lastOut = ""
		}
		k.hist.add(n, req.Code, lastOut)
	}
	if cerr != nil {
		return k.failCell(msg, req, n, cerr)
	}
	return map[string]any{"status": "ok", "execution_count": n, "user_expressions": map[string]any{}, "payload": []any{}}
}

// failCell publishes a cell's error and returns the execute_reply content.
func (k *Kernel) failCell(msg *Message, req executeRequest, n int, cerr *cellError) map[string]any {
	content := map[string]any{"ename": cerr.ename, "evalue": cerr.evalue, "traceback": cerr.traceback}
	if !req.Silent {
		k.publish(msg, "error", content)
	}
	content["status"] = "error"
	content["execution_count"] = n
	return content
}

// defineModule stores a %%python / %%javascript cell as a module on the
// session's script path (a directory of the kernel, searched before the
// working directory) and returns the cell's message.
func (k *Kernel) defineModule(sc *scriptCell) (string, error) {
	k.mu.Lock()
	dir := k.scripts
	k.mu.Unlock()
	if dir == "" {
		d, err := os.MkdirTemp("", "tablerun-kernel-modules-")
		if err != nil {
			return "", fmt.Errorf("create the module directory: %w", err)
		}
		dir = d
		k.mu.Lock()
		k.scripts = dir
		k.mu.Unlock()
		k.env.SetScriptPath(dir, ".")
	}
	return sc.write(dir)
}

func (k *Kernel) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.execCount
}

// cellError is a failed statement of a cell, as Jupyter's error content.
type cellError struct {
	ename, evalue string
	traceback     []string
}

// liveFunc publishes the live display of a streaming result: first a
// display_data, then update_display_data messages with the same display id.
type liveFunc func(first bool, displayID string, data map[string]string)

// runCell runs the statements of code, handing the rich output of each (a
// MIME bundle) to emit as it comes (last is set for the cell's last
// statement), and stops at the first failure. A streaming query's result
// is shown live through live (when not nil) instead. With chart, the last
// statement's result is also drawn as an SVG chart (image/svg+xml).
func runCell(ctx context.Context, env *core.TableEnvironment, code string, chart *ChartSpec, emit func(data map[string]string, last bool), live liveFunc) *cellError {
	stmts, err := parser.ParseScript(code)
	if err != nil {
		return toCellError(err, code)
	}
	for i, st := range stmts {
		last := i == len(stmts)-1
		if strings.EqualFold(strings.TrimSpace(st.Text), "HELP") {
			emit(map[string]string{"text/plain": shell.HelpText}, last)
			continue
		}
		res, err := env.ExecuteSQL(ctx, st.Text)
		if err != nil {
			if ctx.Err() != nil {
				return interrupted()
			}
			return toCellError(core.ShiftPosition(err, st.Line, st.Col), code)
		}
		var draw func(data map[string]string, rows [][]any) *cellError
		if last && chart != nil {
			draw = func(data map[string]string, rows [][]any) *cellError {
				svg, err := RenderChart(chart, res, rows)
				if err != nil {
					return &cellError{ename: "ChartError", evalue: err.Error(), traceback: []string{"[ERROR] " + err.Error()}}
				}
				data["image/svg+xml"] = svg
				return nil
			}
		}
		if res.IsStreaming() {
			final, err := followStream(ctx, res, env.Config().MaxTableResultRows(), live, draw)
			if live == nil && final != nil {
				emit(final, last)
			}
			if err != nil {
				return err
			}
			continue
		}
		data := bundle(env, res)
		if draw != nil {
			if res.Kind() != core.SuccessWithContent || res.IsDML() {
				return &cellError{ename: "ChartError", evalue: "the last statement of a %chart cell must return rows", traceback: []string{}}
			}
			if err := draw(data, res.Rows()); err != nil {
				return err
			}
		}
		emit(data, last)
	}
	return nil
}

// splitChart separates a %chart cell's SVG from the table's bundle: one
// output per MIME bundle, because a front end shows only the richest type
// of a bundle (nbconvert and JupyterLab pick text/html over
// image/svg+xml, which hid the chart). It returns nil and data unchanged
// when data has no chart.
func splitChart(data map[string]string, spec *ChartSpec) (chart, table map[string]string) {
	svg, ok := data["image/svg+xml"]
	if !ok {
		return nil, data
	}
	table = make(map[string]string, len(data)-1)
	for k, v := range data {
		if k != "image/svg+xml" {
			table[k] = v
		}
	}
	alt := "[chart]"
	if spec != nil {
		alt = fmt.Sprintf("[%s chart of %s by %s]", spec.Kind, strings.Join(spec.Y, ", "), spec.X)
	}
	return map[string]string{"image/svg+xml": svg, "text/plain": alt}, table
}

func interrupted() *cellError {
	return &cellError{ename: "Interrupted", evalue: "the statement was canceled", traceback: []string{core.MsgQueryCanceled}}
}

// liveInterval is the longest a change waits before the live display
// shows it (core.TableResult.Follow updates at most this long after a
// batch arrived).
const liveInterval = 100 * time.Millisecond

// followStream materializes a streaming result as its changes arrive in a
// core.View (the current rows only, at most maxRows of them: the oldest go
// first, and the footer says how many) and shows the table so far through
// live, updated no later than liveInterval after a change, until the job
// ends or ctx is cancelled. A batch of changes is applied whole, and a
// view between a -U and its +U is not shown. It returns the final bundle
// (with draw's chart when draw is set) and the job's error.
func followStream(ctx context.Context, res *core.TableResult, maxRows int, live liveFunc, draw func(map[string]string, [][]any) *cellError) (map[string]string, *cellError) {
	defer func() { _ = res.Close() }()
	id := newID()
	view := core.NewView(maxRows)
	shown := false
	var drawErr *cellError
	show := func(state string) map[string]string {
		data := streamBundle(res, view, maxRows, state)
		if draw != nil && state == "finished" {
			drawErr = draw(data, view.Rows())
		}
		if live != nil {
			live(!shown, id, data)
			shown = true
		}
		return data
	}
	err := res.Follow(ctx, liveInterval, func(b core.ChangeBatch) error {
		view.ApplyBatch(b)
		return nil
	}, func() error {
		if live != nil && !view.Pending() {
			show("running")
		}
		return nil
	})
	if ctx.Err() != nil || core.IsCanceled(err) {
		show("canceled")
		return nil, interrupted()
	}
	if err != nil {
		show("failed")
		return nil, toCellError(err, "")
	}
	final := show("finished")
	return final, drawErr
}

// WatchStream is the kernel's live display of a streaming result without
// a Jupyter connection (benchmarks): it materializes res as a cell does
// and hands each MIME bundle it would publish to publish (first is true
// for the display_data, false for the update_display_data messages),
// until the job ends or ctx is cancelled. It returns the final bundle and
// the job's error (ctx.Err() when ctx ended it).
func WatchStream(ctx context.Context, res *core.TableResult, maxRows int, publish func(first bool, data map[string]string)) (map[string]string, error) {
	final, cerr := followStream(ctx, res, maxRows, func(first bool, _ string, data map[string]string) { publish(first, data) }, nil)
	switch {
	case cerr == nil:
		return final, nil
	case ctx.Err() != nil:
		return final, ctx.Err()
	}
	return final, errors.New(cerr.evalue)
}

// streamBundle renders the materialized rows of a streaming result: the
// first MaxHTMLRows of them (in text and HTML), with a footer that says
// how many there are, how many changes came and how many rows the cap
// dropped.
func streamBundle(res *core.TableResult, view *core.View, maxRows int, state string) map[string]string {
	g := shell.GridOf(res, view.First(MaxHTMLRows), nil)
	footer := fmt.Sprintf("%s (%d changes received, %s)", rowCount(view.Len(), view.Len() > MaxHTMLRows), view.Changes(), state)
	if view.Cut() > 0 {
		footer += fmt.Sprintf("; %d oldest rows dropped: %s is %d", view.Cut(), config.KeyMaxTableResultRows, maxRows)
	}
	var b strings.Builder
	for _, l := range g.Lines(0, len(g.Rows), 0) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(footer)
	return map[string]string{"text/plain": b.String(), "text/html": htmlGrid(g, res.Schema(), false, footer)}
}

// isHelpCell reports whether code is just the HELP command.
func isHelpCell(code string) bool {
	stmts, err := parser.ParseScript(code)
	return err == nil && len(stmts) == 1 && strings.EqualFold(strings.TrimSpace(stmts[0].Text), "HELP")
}

// toCellError turns a statement's error into Jupyter's error content.
// code is the text the error's position refers to (the cell's SQL): the
// traceback then shows the line with a caret under the token, and a hint
// when there is one (core.ErrorContext).
func toCellError(err error, code string) *cellError {
	ename := "org.apache.flink.table.api.TableException"
	var ce *core.Error
	if errors.As(err, &ce) && ce.Class != "" {
		ename = ce.Class
	}
	evalue := err.Error()
	reason := core.Reason(err)
	tb := []string{core.MsgErrorPrefix}
	tb = append(tb, strings.Split(reason, "\n")...)
	if c := core.ErrorContext(err, code); c != "" {
		tb = append(tb, strings.Split(strings.TrimSuffix(c, "\n"), "\n")...)
	}
	return &cellError{ename: ename, evalue: evalue, traceback: tb}
}

// bundle renders a statement's result as a MIME bundle.
func bundle(env *core.TableEnvironment, res *core.TableResult) map[string]string {
	var b strings.Builder
	_ = core.PrintClientResult(&b, env.Config(), res, nil)
	plain := strings.TrimRight(b.String(), "\n")
	if res.IsDML() || res.Kind() == core.Success {
		return map[string]string{"text/plain": plain}
	}
	return map[string]string{"text/plain": plain, "text/html": HTMLTable(res)}
}

// complete answers complete_request.
func (k *Kernel) complete(msg *Message) map[string]any {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	_ = json.Unmarshal(msg.Content, &req)
	matches, start, end := shell.Completions(k.env, req.Code, req.CursorPos)
	if matches == nil {
		matches = []string{}
	}
	return map[string]any{"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": end, "metadata": map[string]any{}}
}

// inspect answers inspect_request.
func (k *Kernel) inspect(msg *Message) map[string]any {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	_ = json.Unmarshal(msg.Content, &req)
	res, doc, ok := shell.Inspect(k.env, req.Code, req.CursorPos)
	data := map[string]string{}
	switch {
	case !ok:
	case res != nil:
		data = bundle(k.env, res)
	default:
		data["text/plain"] = doc
	}
	return map[string]any{"status": "ok", "found": ok, "data": data, "metadata": map[string]any{}}
}

// isComplete answers is_complete_request: code is complete when its last
// statement is terminated by ';', or parses as a statement without it;
// unterminated strings and comments make it incomplete.
func isComplete(msg *Message) map[string]any {
	var req struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(msg.Content, &req)
	status := "incomplete"
	if shell.IsTerminated(req.Code) {
		status = "complete"
	} else if stmts, err := parser.ParseScript(req.Code); err == nil && len(stmts) > 0 {
		if _, err := parser.ParseStatement(stmts[len(stmts)-1].Text); err == nil {
			status = "complete"
		}
	}
	out := map[string]any{"status": status}
	if status == "incomplete" {
		out["indent"] = ""
	}
	return out
}

// streamWriter sends what the print connector writes as stream output of
// the running cell.
type streamWriter struct {
	k    *Kernel
	name string
}

// Write implements io.Writer.
func (w *streamWriter) Write(p []byte) (int, error) {
	w.k.mu.Lock()
	parent := w.k.current
	w.k.mu.Unlock()
	if parent != nil && len(p) > 0 {
		w.k.publish(parent, "stream", map[string]any{"name": w.name, "text": string(p)})
	}
	return len(p), nil
}

// watchParent cancels the kernel when its parent process goes away (the
// kernel is re-parented), so a Jupyter server killed without a
// shutdown_request leaves no kernel behind.
func watchParent(ctx context.Context, cancel context.CancelFunc, every time.Duration) {
	parent := os.Getppid()
	if parent <= 1 {
		return // started by init or a container runtime: nobody to watch
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if os.Getppid() != parent {
				cancel()
				return
			}
		}
	}
}
