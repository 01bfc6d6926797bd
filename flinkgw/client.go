// Package flinkgw is a client of Apache Flink's SQL Gateway REST API
// (REST endpoint versions v2 and later; v4 by default, the newest in Flink
// 2.3): sessions with properties and heartbeats, statements, results
// fetched page by page as JSON rows with their changelog kind, and
// cancelling and closing operations.
//
// It is written against the JSON the gateway really sends, which differs
// from the generated OpenAPI schema: a result page is
//
//	{"resultType": "NOT_READY" | "PAYLOAD" | "EOS",
//	 "isQueryResult": true, "jobID": "…", "resultKind": "SUCCESS_WITH_CONTENT",
//	 "results": {"columns": [{"name": "a", "logicalType": {"type": "INTEGER", "nullable": false}, "comment": null}],
//	             "rowFormat": "JSON",
//	             "data": [{"kind": "INSERT", "fields": [1]}]},
//	 "nextResultUri": "/v4/sessions/…/operations/…/result/5?rowFormat=JSON"}
//
// (a NOT_READY page has only resultType and nextResultUri; the last page,
// EOS, has no nextResultUri), and an error is {"errors": [msg, …]} with the
// server's stack trace in the last message. Fixtures recorded from a real
// gateway are in testdata/.
//
//	c := flinkgw.New("http://127.0.0.1:8083")
//	s, _ := c.OpenSession(ctx, "", map[string]string{"execution.runtime-mode": "batch"})
//	defer s.Close(ctx)
//	op, _ := s.Execute(ctx, "SELECT 1", nil)
//	res, _ := op.FetchAll(ctx, 0)
package flinkgw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Client talks to one SQL Gateway.
type Client struct {
	// BaseURL is "http://host:port" (no trailing slash).
	BaseURL string
	// Version is the REST API version path segment ("v4" by default; "v2"
	// is the oldest with rowFormat=JSON).
	Version string
	HTTP    *http.Client
	// PollInterval is the pause between two fetches of a NOT_READY page
	// (50ms by default).
	PollInterval time.Duration
	// Trace, when set, sees every exchange (for recording fixtures).
	Trace func(method, path string, reqBody []byte, status int, respBody []byte)
}

// New returns a client of the gateway at baseURL.
func New(baseURL string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Version: "v4", HTTP: &http.Client{Timeout: 5 * time.Minute}, PollInterval: 50 * time.Millisecond}
}

// Error is a gateway's error response: the HTTP status and the "errors"
// list of Flink's ErrorResponseBody.
type Error struct {
	Status int
	Errors []string
}

func (e *Error) Error() string {
	if c := e.RootCause(); c != "" {
		return fmt.Sprintf("flink gateway: HTTP %d: %s", e.Status, c)
	}
	return fmt.Sprintf("flink gateway: HTTP %d: %s", e.Status, strings.Join(e.Errors, "; "))
}

var versioned = regexp.MustCompile(`^/v[0-9]+/`)

var causeRE = regexp.MustCompile(`(?m)^(?:Caused by: )?([a-zA-Z_$][\w$]*(?:\.[a-zA-Z_$][\w$]*)+(?:Exception|Error|Throwable)): ?(.*)$`)

// Causes returns the exception chain of the server's stack trace, outermost
// first, as "<class>: <message>" lines (only each cause's first line).
func (e *Error) Causes() []string {
	var out []string
	for _, msg := range e.Errors {
		for _, m := range causeRE.FindAllStringSubmatch(msg, -1) {
			out = append(out, strings.TrimSpace(m[1]+": "+m[2]))
		}
	}
	return out
}

// Classes returns the Java exception classes of Causes, outermost first.
func (e *Error) Classes() []string {
	var out []string
	for _, c := range e.Causes() {
		cls, _, _ := strings.Cut(c, ":")
		out = append(out, cls)
	}
	return out
}

// RootCause returns the innermost "<class>: <message>" of the chain ("" if
// the body has no stack trace).
func (e *Error) RootCause() string {
	cs := e.Causes()
	if len(cs) == 0 {
		return ""
	}
	return cs[len(cs)-1]
}

// Root returns the innermost exception of the server's stack trace: its
// class and its whole message, which may span lines (a parse error's
// "Was expecting one of: …"); ok is false when the body has no stack
// trace. This is what Flink's SQL client prints after "[ERROR] Could not
// execute SQL statement. Reason:".
func (e *Error) Root() (class, msg string, ok bool) {
	for i := len(e.Errors) - 1; i >= 0; i-- {
		text := e.Errors[i]
		text = strings.TrimPrefix(text, "<Exception on server side:\n")
		start := 0
		if j := strings.LastIndex(text, "\nCaused by: "); j >= 0 {
			start = j + len("\nCaused by: ")
		}
		rest := text[start:]
		// the message ends where the frames begin
		end := len(rest)
		for _, stop := range []string{"\n\tat ", "\n\t... ", "\n\nEnd of exception on server side>"} {
			if k := strings.Index(rest, stop); k >= 0 && k < end {
				end = k
			}
		}
		head := strings.TrimRight(rest[:end], "\n")
		m := causeRE.FindStringSubmatchIndex(head)
		if m == nil || m[0] != 0 {
			continue
		}
		class = head[m[2]:m[3]]
		msg = strings.TrimPrefix(head[m[3]:], ":")
		return class, strings.TrimPrefix(msg, " "), true
	}
	return "", "", false
}

// HasClass reports whether a class whose name ends with suffix (e.g.
// "ValidationException", "org.apache.flink.table.api.TableException") is in
// the chain.
func (e *Error) HasClass(suffix string) bool {
	for _, c := range e.Classes() {
		if strings.HasSuffix(c, suffix) {
			return true
		}
	}
	return false
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	url := c.BaseURL + path
	if !versioned.MatchString(path) {
		url = c.BaseURL + "/" + c.version() + path
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if c.Trace != nil {
		c.Trace(method, strings.TrimPrefix(url, c.BaseURL), body, resp.StatusCode, rb)
	}
	if resp.StatusCode/100 != 2 {
		e := &Error{Status: resp.StatusCode}
		if json.Unmarshal(rb, &struct {
			Errors *[]string `json:"errors"`
		}{&e.Errors}) != nil || len(e.Errors) == 0 {
			e.Errors = []string{strings.TrimSpace(string(rb))}
		}
		return e
	}
	if out == nil || len(bytes.TrimSpace(rb)) == 0 {
		return nil
	}
	if err := json.Unmarshal(rb, out); err != nil {
		return fmt.Errorf("flink gateway: %s %s: bad response %.200q: %w", method, path, rb, err)
	}
	return nil
}

func (c *Client) version() string {
	if c.Version == "" {
		return "v4"
	}
	return c.Version
}

// Info is the gateway's /info answer.
type Info struct {
	ProductName string `json:"productName"`
	Version     string `json:"version"`
}

// Info returns the product name and Flink version.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var i Info
	err := c.do(ctx, http.MethodGet, "/info", nil, &i)
	return i, err
}

// Session is an open gateway session.
type Session struct {
	c      *Client
	Handle string
}

// OpenSession opens a session with the given name ("" for none) and
// session properties (any Flink option, e.g. "execution.runtime-mode").
func (c *Client) OpenSession(ctx context.Context, name string, props map[string]string) (*Session, error) {
	in := map[string]any{}
	if name != "" {
		in["sessionName"] = name
	}
	if props != nil {
		in["properties"] = props
	}
	var out struct {
		SessionHandle string `json:"sessionHandle"`
	}
	if err := c.do(ctx, http.MethodPost, "/sessions", in, &out); err != nil {
		return nil, err
	}
	if out.SessionHandle == "" {
		return nil, errors.New("flink gateway: no sessionHandle in the answer")
	}
	return &Session{c: c, Handle: out.SessionHandle}, nil
}

// Close closes the session and every operation in it.
func (s *Session) Close(ctx context.Context) error {
	return s.c.do(ctx, http.MethodDelete, "/sessions/"+s.Handle, nil, nil)
}

// Heartbeat keeps the session from expiring (sql-gateway.session.idle-timeout).
func (s *Session) Heartbeat(ctx context.Context) error {
	return s.c.do(ctx, http.MethodPost, "/sessions/"+s.Handle+"/heartbeat", nil, nil)
}

// Properties returns the session's effective configuration.
func (s *Session) Properties(ctx context.Context) (map[string]string, error) {
	var out struct {
		Properties map[string]string `json:"properties"`
	}
	err := s.c.do(ctx, http.MethodGet, "/sessions/"+s.Handle, nil, &out)
	return out.Properties, err
}

// Operation is a statement submitted in a session.
type Operation struct {
	s      *Session
	Handle string
}

// Execute submits one statement; execConfig (may be nil) holds options for
// this statement only. The statement runs asynchronously: read its result
// with Fetch or FetchAll.
func (s *Session) Execute(ctx context.Context, statement string, execConfig map[string]string) (*Operation, error) {
	in := map[string]any{"statement": statement}
	if len(execConfig) > 0 {
		in["executionConfig"] = execConfig
	}
	var out struct {
		OperationHandle string `json:"operationHandle"`
	}
	if err := s.c.do(ctx, http.MethodPost, "/sessions/"+s.Handle+"/statements", in, &out); err != nil {
		return nil, err
	}
	return &Operation{s: s, Handle: out.OperationHandle}, nil
}

func (o *Operation) path(suffix string) string {
	return "/sessions/" + o.s.Handle + "/operations/" + o.Handle + suffix
}

// Status returns the operation's status (INITIALIZED, PENDING, RUNNING,
// FINISHED, CANCELED, CLOSED, ERROR, TIMEOUT).
func (o *Operation) Status(ctx context.Context) (string, error) {
	var out struct {
		Status string `json:"status"`
	}
	err := o.s.c.do(ctx, http.MethodGet, o.path("/status"), nil, &out)
	return out.Status, err
}

// Cancel cancels a running operation (its job too).
func (o *Operation) Cancel(ctx context.Context) error {
	return o.s.c.do(ctx, http.MethodPost, o.path("/cancel"), nil, nil)
}

// Close closes the operation and frees its results on the gateway.
func (o *Operation) Close(ctx context.Context) error {
	return o.s.c.do(ctx, http.MethodDelete, o.path("/close"), nil, nil)
}

// Result types of a page.
const (
	NotReady = "NOT_READY"
	Payload  = "PAYLOAD"
	EOS      = "EOS"
)

// Page is one answer of the result endpoint.
type Page struct {
	ResultType    string `json:"resultType"`
	IsQueryResult bool   `json:"isQueryResult"`
	JobID         string `json:"jobID"`
	// ResultKind is SUCCESS or SUCCESS_WITH_CONTENT.
	ResultKind    string     `json:"resultKind"`
	Results       ResultInfo `json:"results"`
	NextResultURI string     `json:"nextResultUri"`
}

// ResultInfo is a page's schema and rows.
type ResultInfo struct {
	Columns   []Column `json:"columns"`
	RowFormat string   `json:"rowFormat"`
	Data      []Row    `json:"data"`
}

// Column is one result column with its logical type.
type Column struct {
	Name        string      `json:"name"`
	LogicalType LogicalType `json:"logicalType"`
	Comment     *string     `json:"comment"`
}

// LogicalType is Flink's JSON form of a logical type
// (LogicalTypeJsonSerializer): the root name in Type and the attributes
// that root has.
type LogicalType struct {
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
	// Length of CHAR/VARCHAR/BINARY/VARBINARY.
	Length *int `json:"length,omitempty"`
	// Precision of DECIMAL, TIME, TIMESTAMP*, and the leading precision of
	// intervals.
	Precision *int `json:"precision,omitempty"`
	Scale     *int `json:"scale,omitempty"`
	// Interval attributes.
	FractionalPrecision *int   `json:"fractionalPrecision,omitempty"`
	Resolution          string `json:"resolution,omitempty"`
	// Nested types.
	ElementType *LogicalType `json:"elementType,omitempty"`
	KeyType     *LogicalType `json:"keyType,omitempty"`
	ValueType   *LogicalType `json:"valueType,omitempty"`
	Fields      []RowField   `json:"fields,omitempty"`
}

// RowField is a field of a ROW type.
type RowField struct {
	Name        string      `json:"name"`
	FieldType   LogicalType `json:"fieldType"`
	Description *string     `json:"description,omitempty"`
}

// Row is one changelog row: Kind is INSERT, UPDATE_BEFORE, UPDATE_AFTER or
// DELETE; Fields are the JSON values (see the value conversion of the
// caller: DECIMAL as a JSON number, DATE/TIME/TIMESTAMP as ISO strings,
// TIMESTAMP_LTZ with a 'Z', BINARY as base64, intervals as numbers, ROW as
// an object keyed by field name, MAP as an object or a list of entries).
type Row struct {
	Kind   string            `json:"kind"`
	Fields []json.RawMessage `json:"fields"`
}

// Fetch reads the page at token. The path the gateway gave as nextResultUri
// can be read with FetchURI.
func (o *Operation) Fetch(ctx context.Context, token int64) (*Page, error) {
	return o.FetchURI(ctx, o.path(fmt.Sprintf("/result/%d?rowFormat=JSON", token)))
}

// FetchURI reads the page at a path such as a page's NextResultURI.
func (o *Operation) FetchURI(ctx context.Context, uri string) (*Page, error) {
	var p Page
	if err := o.s.c.do(ctx, http.MethodGet, uri, nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Result is the whole result of an operation.
type Result struct {
	IsQueryResult bool
	JobID         string
	ResultKind    string
	Columns       []Column
	Rows          []Row
	// Complete is false when FetchAll stopped at its row limit before EOS.
	Complete bool
}

// FetchAll follows nextResultUri from token 0 until EOS, waiting on
// NOT_READY pages, and returns every row. With maxRows > 0 it stops (and
// leaves Complete false) once that many rows arrived; the caller should
// then Cancel or Close the operation.
func (o *Operation) FetchAll(ctx context.Context, maxRows int) (*Result, error) {
	res := &Result{}
	uri := o.path("/result/0?rowFormat=JSON")
	poll := o.s.c.PollInterval
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	for {
		p, err := o.FetchURI(ctx, uri)
		if err != nil {
			return res, err
		}
		switch p.ResultType {
		case NotReady:
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(poll):
			}
		case Payload, EOS:
			res.IsQueryResult, res.JobID, res.ResultKind = p.IsQueryResult, p.JobID, p.ResultKind
			if res.Columns == nil {
				res.Columns = p.Results.Columns
			}
			if p.Results.RowFormat != "" && p.Results.RowFormat != "JSON" {
				return res, fmt.Errorf("flink gateway: rowFormat %s, want JSON", p.Results.RowFormat)
			}
			res.Rows = append(res.Rows, p.Results.Data...)
			if maxRows > 0 && len(res.Rows) >= maxRows {
				return res, nil
			}
		default:
			return res, fmt.Errorf("flink gateway: unknown resultType %q", p.ResultType)
		}
		if p.ResultType == EOS || p.NextResultURI == "" {
			res.Complete = p.ResultType == EOS || p.NextResultURI == ""
			return res, nil
		}
		uri = p.NextResultURI
	}
}
