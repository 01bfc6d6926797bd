package gateway

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// Operation statuses, Flink's OperationStatus.
const (
	statusPending  = "PENDING"
	statusRunning  = "RUNNING"
	statusFinished = "FINISHED"
	statusCanceled = "CANCELED"
	statusClosed   = "CLOSED"
	statusError    = "ERROR"
)

// operation is one statement of a session: it runs on a goroutine of its
// own (PENDING while an earlier statement of the session runs, RUNNING
// while the TableEnvironment executes it) and, once FINISHED, serves its
// result through a fetcher.
type operation struct {
	handle string
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the statement left RUNNING

	mu     sync.Mutex
	status string
	err    error
	fetch  *fetcher
}

func (o *operation) state() (status string, err error, f *fetcher) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.status, o.err, o.fetch
}

// setStatus moves the operation to status unless it was cancelled or
// closed meanwhile; it reports whether it did.
func (o *operation) setStatus(status string, err error, f *fetcher) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.status == statusCanceled || o.status == statusClosed {
		return false
	}
	o.status, o.err, o.fetch = status, err, f
	return true
}

// close ends the operation: the statement's context is cancelled and a
// result still streaming is closed (its job ends). It waits for the
// statement's goroutine so that nothing of it outlives the close.
func (o *operation) close() {
	o.mu.Lock()
	o.status = statusClosed
	f := o.fetch
	o.fetch = nil
	o.mu.Unlock()
	o.cancel()
	<-o.done
	if f != nil {
		f.close()
	}
	o.mu.Lock()
	f = o.fetch // set by a statement that finished while we waited
	o.fetch = nil
	o.mu.Unlock()
	if f != nil {
		f.close()
	}
}

// fetcher serves a result page by page with Flink's ResultFetcher token
// protocol: fetching the current token hands out new rows and moves on,
// fetching the previous one repeats the last page, anything else fails.
// A reader goroutine moves the result's change batches into a channel of
// one batch (the job waits while the client does not fetch: memory stays
// bounded).
type fetcher struct {
	schema  types.Schema
	columns []column
	isQuery bool
	kind    string // SUCCESS or SUCCESS_WITH_CONTENT
	jobID   string
	res     *core.TableResult

	batches chan core.ChangeBatch
	stop    chan struct{}
	ended   chan struct{} // closed after the reader's last send
	endErr  error         // what ended the result (read after ended)
	once    sync.Once

	mu      sync.Mutex // one fetch at a time
	cur     int64
	eos     bool
	prev    []byte // the last page's rows, JSON-encoded per format
	prevFmt string
	pending core.ChangeBatch
	off     int
}

// newFetcher wraps a statement's result. INSERT results are Flink's "job
// id" table; results without content are the single "OK" row.
func newFetcher(res *core.TableResult) *fetcher {
	f := &fetcher{
		res:     res,
		schema:  res.Schema(),
		isQuery: res.IsQuery(),
		kind:    res.Kind().String(),
		batches: make(chan core.ChangeBatch, 1),
		stop:    make(chan struct{}),
		ended:   make(chan struct{}),
	}
	if res.IsDML() {
		f.jobID = res.JobID()
		f.kind = core.SuccessWithContent.String()
		f.schema = types.Schema{{Name: "job id", Type: types.StringT}}
		f.columns = columnsOf(f.schema)
		f.batches <- core.ChangeBatch{Kinds: []changelog.RowKind{changelog.Insert}, Rows: []core.Row{{f.jobID}}}
		close(f.batches)
		close(f.ended)
		return f
	}
	f.columns = columnsOf(f.schema)
	go func() {
		defer close(f.ended)
		defer close(f.batches)
		for b := range res.ChangeBatches() {
			select {
			case f.batches <- b:
			case <-f.stop:
				return
			}
		}
		f.endErr = res.Err()
	}()
	return f
}

// close stops the reader and the result's job.
func (f *fetcher) close() {
	f.once.Do(func() {
		close(f.stop)
		_ = f.res.Close()
		<-f.ended
		f.mu.Lock()
		f.pending, f.prev = core.ChangeBatch{}, nil
		f.mu.Unlock()
	})
}

// fetchResult is what one fetch hands back.
type fetchResult struct {
	eos  bool
	rows []byte // comma-separated JSON row objects
	next int64
}

// fetchPage serves token: new rows for the current token (waiting up to
// wait for them; an empty page when none came), the same rows again for
// the previous one.
func (f *fetcher) fetchPage(ctx context.Context, token int64, format string, maxRows int, wait time.Duration) (fetchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case token == f.cur:
	case token == f.cur-1 && token >= 0:
		if f.prevFmt != format {
			return fetchResult{}, fmt.Errorf("the page of token %d was fetched as %s, not %s", token, f.prevFmt, format)
		}
		return fetchResult{rows: f.prev, next: f.cur}, nil
	case f.cur == 0:
		return fetchResult{}, &javaError{classSQLExecution, fmt.Sprintf("Expecting token to be 0, but found %d.", token)}
	default:
		return fetchResult{}, &javaError{classSQLExecution, fmt.Sprintf("Expecting token to be %d or %d, but found %d.", f.cur, f.cur-1, token)}
	}
	if f.eos {
		return fetchResult{eos: true}, nil
	}
	if f.off >= f.pending.Len() {
		f.pending, f.off = core.ChangeBatch{}, 0
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case b, ok := <-f.batches:
			if !ok {
				<-f.ended
				if f.endErr != nil {
					return fetchResult{}, f.endErr
				}
				f.eos = true
				return fetchResult{eos: true}, nil
			}
			f.pending = b
		case <-timer.C:
		case <-ctx.Done():
			return fetchResult{}, ctx.Err()
		}
	}
	end := min(f.pending.Len(), f.off+maxRows)
	var b []byte
	for i := f.off; i < end; i++ {
		if i > f.off {
			b = append(b, ',')
		}
		b = f.appendRow(b, f.pending.Kinds[i], f.pending.Rows[i], format)
	}
	f.off = end
	f.cur++
	f.prev, f.prevFmt = b, format
	return fetchResult{rows: b, next: f.cur}, nil
}

var kindNames = map[changelog.RowKind]string{
	changelog.Insert:       "INSERT",
	changelog.UpdateBefore: "UPDATE_BEFORE",
	changelog.UpdateAfter:  "UPDATE_AFTER",
	changelog.Delete:       "DELETE",
}

func (f *fetcher) appendRow(b []byte, kind changelog.RowKind, row core.Row, format string) []byte {
	b = append(b, `{"kind":"`...)
	b = append(b, kindNames[kind]...)
	b = append(b, `","fields":[`...)
	for i, v := range row {
		if i > 0 {
			b = append(b, ',')
		}
		if i >= len(f.schema) {
			b = append(b, "null"...)
			continue
		}
		if format == formatPlain {
			if v == nil {
				b = append(b, "null"...)
			} else {
				b = appendString(b, f.res.Format(v, f.schema[i].Type))
			}
			continue
		}
		b = appendJSON(b, v, f.schema[i].Type)
	}
	return append(b, "]}"...)
}

// Row formats of the result endpoint.
const (
	formatJSON  = "JSON"
	formatPlain = "PLAIN_TEXT"
)

// pageJSON renders a result page as Flink's FetchResultsResponseBody.
func (f *fetcher) pageJSON(r fetchResult, format, nextURI string) []byte {
	b := make([]byte, 0, 256+len(r.rows))
	b = append(b, `{"resultType":"`...)
	if r.eos {
		b = append(b, "EOS"...)
	} else {
		b = append(b, "PAYLOAD"...)
	}
	b = append(b, `","isQueryResult":`...)
	b = strconv.AppendBool(b, f.isQuery)
	if f.jobID != "" {
		b = append(b, `,"jobID":`...)
		b = appendString(b, f.jobID)
	}
	b = append(b, `,"resultKind":"`...)
	b = append(b, f.kind...)
	b = append(b, `","results":{"columns":`...)
	cols, _ := jsonMarshal(f.columns)
	b = append(b, cols...)
	b = append(b, `,"rowFormat":"`...)
	b = append(b, format...)
	b = append(b, `","data":[`...)
	b = append(b, r.rows...)
	b = append(b, "]}"...)
	if !r.eos {
		b = append(b, `,"nextResultUri":`...)
		b = appendString(b, nextURI)
	}
	return append(b, '}')
}

// javaError is an error with the Java class Flink reports for it.
type javaError struct {
	class, msg string
}

func (e *javaError) Error() string     { return e.msg }
func (e *javaError) JavaClass() string { return e.class }
func (e *javaError) cause() string     { return e.class + ": " + e.msg }
