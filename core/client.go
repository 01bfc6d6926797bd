package core

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/tablerun/tablerun/core/config"
)

// Messages of Flink's SQL client.
const (
	MsgStatementSucceeded = "[INFO] Execute statement succeeded."
	MsgDMLComplete        = "[INFO] Complete execution of the SQL update statement."
	MsgDMLSubmitting      = "[INFO] Submitting SQL update statement to the cluster..."
	MsgDMLSubmitted       = "[INFO] SQL update statement has been successfully submitted to the cluster:"
	MsgErrorPrefix        = "[ERROR] Could not execute SQL statement. Reason:"
	// MsgQueryCanceled is printed when Ctrl-C (or the cancellation of the
	// statement's context) ends a running query.
	MsgQueryCanceled = "[INFO] Query canceled."
)

// IsCanceled reports whether err is the end of a statement canceled by
// Ctrl-C or by its context: clients print MsgQueryCanceled for it, not
// an error.
func IsCanceled(err error) bool {
	return errors.Is(err, context.Canceled)
}

// OutputTag classifies what the SQL client printed for a statement: "error",
// "info" or "ok" (a result table or "Empty set"), as the !-tags of Flink's
// .q test scripts.
func OutputTag(res *TableResult, err error) string {
	switch {
	case err != nil:
		return "error"
	case res.IsDML() || res.Kind() == Success:
		return "info"
	}
	return "ok"
}

// PrintClientResult writes what Flink's SQL client prints in tableau mode
// for the outcome of one statement (res or err), using the session's
// options (sql-client.display.print-time-cost for query footers). INSERT
// runs synchronously unless the session set table.dml-sync to false: then
// it prints the job id of the submitted job. A query that fails while its
// rows are printed gets the rows so far, then the error; the error is
// returned. A streaming query's changes are written to w as they arrive
// (flushed at most DefaultFlushInterval after leaving the job) and not
// kept; a canceled statement ends with MsgQueryCanceled and returns an
// error for which IsCanceled holds.
func PrintClientResult(w io.Writer, cfg *config.Config, res *TableResult, err error) error {
	var b strings.Builder
	switch {
	case err != nil && IsCanceled(err):
		b.WriteString(MsgQueryCanceled + "\n")
	case err != nil:
		b.WriteString(MsgErrorPrefix)
		b.WriteByte('\n')
		b.WriteString(Reason(err))
		b.WriteByte('\n')
	case res.IsDML() && res.Submitted():
		b.WriteString(MsgDMLSubmitting + "\n" + MsgDMLSubmitted + "\nJob ID: " + res.JobID() + "\n")
	case res.IsDML():
		b.WriteString(MsgDMLComplete + "\n")
	case res.Kind() == Success:
		b.WriteString(MsgStatementSucceeded + "\n")
	case res.IsStreaming():
		timed := cfg != nil && cfg.PrintTimeCost() && res.IsQuery()
		if err := res.print(w, timed); err != nil {
			if IsCanceled(err) {
				b.WriteString(MsgQueryCanceled + "\n")
			} else {
				b.WriteString(MsgErrorPrefix + "\n" + Reason(err) + "\n")
			}
			if _, werr := io.WriteString(w, b.String()); werr != nil {
				return werr
			}
			return err
		}
		return nil
	default:
		timed := cfg != nil && cfg.PrintTimeCost() && res.IsQuery()
		if err := res.print(&b, timed); err != nil {
			// a job that fails after producing rows (a streaming query):
			// the rows printed so far stay, then the error as for a
			// failing statement; the caller learns that it failed
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
			b.WriteString(MsgErrorPrefix)
			b.WriteByte('\n')
			b.WriteString(Reason(err))
			b.WriteByte('\n')
			if _, werr := io.WriteString(w, b.String()); werr != nil {
				return werr
			}
			return err
		}
	}
	_, werr := io.WriteString(w, b.String())
	return werr
}
