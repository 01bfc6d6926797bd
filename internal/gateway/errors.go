package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tablerun/tablerun/core"
)

// Java classes of Flink's REST layer and gateway that its error bodies
// name (the clients parse the "Caused by:" chain).
const (
	classRestHandler    = "org.apache.flink.runtime.rest.handler.RestHandlerException"
	classHandlerRequest = "org.apache.flink.runtime.rest.handler.HandlerRequestException"
	classGateway        = "org.apache.flink.table.gateway.api.utils.SqlGatewayException"
	classSQLExecution   = "org.apache.flink.table.gateway.service.utils.SqlExecutionException"
	classSQLParser      = "org.apache.flink.table.api.SqlParserException"
	classValidation     = "org.apache.flink.table.api.ValidationException"
	classCalciteContext = "org.apache.calcite.runtime.CalciteContextException"
	classJSONParse      = "org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParseException"
	classJSONMismatch   = "org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.exc.MismatchedInputException"
	classUnsupportedOp  = "java.lang.UnsupportedOperationException"
)

// restError is an error answer: the HTTP status and the "errors" list of
// Flink's ErrorResponseBody.
type restError struct {
	status int
	errors []string
}

func (e *restError) Error() string { return strings.Join(e.errors, "\n") }

// chain renders an exception chain, outermost first, as a Java stack trace
// without frames: "<class>: <msg>" and "Caused by: <class>: <msg>" lines.
func chain(causes []string) string {
	var b strings.Builder
	for i, c := range causes {
		if i > 0 {
			b.WriteString("\nCaused by: ")
		}
		b.WriteString(c)
	}
	b.WriteByte('\n')
	return b.String()
}

// errNotFound is the router's 404.
func errNotFound(path string) *restError {
	return &restError{http.StatusNotFound, []string{"Not found: " + path}}
}

// errBadParameter is a path or query parameter that does not parse.
func errBadParameter(kind, name, value string) *restError {
	msg := fmt.Sprintf("Cannot resolve %s parameter (%s) from value %q.", kind, name, value)
	return &restError{http.StatusBadRequest, []string{chain([]string{
		classRestHandler + ": Bad request, could not parse parameters: " + msg,
		classHandlerRequest + ": " + msg,
	})}}
}

// errBadBody is a request body that is not the JSON the endpoint takes.
func errBadBody(bodyType string, err error) *restError {
	cls := classJSONMismatch
	var se *json.SyntaxError
	if errors.As(err, &se) || strings.Contains(err.Error(), "unexpected end of JSON") {
		cls = classJSONParse
	}
	return &restError{http.StatusBadRequest, []string{chain([]string{
		classRestHandler + ": Request did not match expected format " + bodyType + ".",
		cls + ": " + err.Error(),
	})}}
}

// errHandler is a failure of the gateway service in a handler that reports
// it as RestHandlerException ("Failed to getOperationInfo.").
func errHandler(action string, causes ...string) *restError {
	all := append([]string{classRestHandler + ": Failed to " + action + ".", classGateway + ": Failed to " + action + "."}, causes...)
	return &restError{http.StatusInternalServerError, []string{chain(all)}}
}

// errInternal is a failure the REST layer reports as "Internal server
// error." with the server-side exception (statement execution, results).
func errInternal(causes ...string) *restError {
	return &restError{http.StatusInternalServerError, []string{
		"Internal server error.",
		"<Exception on server side:\n" + chain(causes) + "\nEnd of exception on server side>",
	}}
}

func sessionMissing(h string) string {
	return classGateway + ": Session '" + h + "' does not exist."
}

func operationMissing(h string) string {
	return classGateway + ": Can not find the submitted operation in the OperationManager with the " + h + "."
}

// statementCauses is the exception chain of a failed statement, ending
// with the root cause Flink's SQL client prints (core.Reason).
func statementCauses(err error) []string {
	reason := core.Reason(err)
	var ce *core.Error
	if errors.As(err, &ce) {
		switch {
		case ce.Class == core.ClassParse:
			return []string{classSQLParser + ": SQL parse failed. " + ce.Error(), reason}
		case ce.Class == core.ClassSQLValidator:
			d := ce.Detail()
			return []string{classValidation + ": SQL validation failed. " + d, classCalciteContext + ": " + d, reason}
		}
	}
	return []string{reason}
}

func writeError(w http.ResponseWriter, e *restError) {
	writeJSON(w, e.status, map[string][]string{"errors": e.errors})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := jsonMarshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(map[string][]string{"errors": {"Internal server error.", err.Error()}})
	}
	writeRaw(w, status, b)
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
