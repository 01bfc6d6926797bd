package shell

import (
	"strings"

	"github.com/tablerun/tablerun/planner/parser"
)

// sentinel is appended on a line of its own to the pending input to find
// out whether the input ends with a complete statement: parser.ParseScript
// reports it as a statement of its own exactly when everything before it
// was terminated by a ';' outside strings, quoted identifiers, comments and
// STATEMENT SET BEGIN … END blocks (comments may follow the last ';').
const sentinel = "tablerun_sentinel"

// complete reports whether input (the lines typed so far) ends with a
// terminated statement, so that it can be run. Input holding only blanks
// is complete (it runs nothing).
func complete(input string) bool {
	if strings.TrimSpace(input) == "" {
		return true
	}
	stmts, err := parser.ParseScript(input + "\n" + sentinel)
	if err != nil {
		// An unterminated string, quoted identifier or comment: the
		// statement goes on on the next line.
		return false
	}
	if len(stmts) == 0 {
		return false
	}
	last := stmts[len(stmts)-1].Text
	if !strings.HasSuffix(last, sentinel) {
		return false
	}
	// Only comments may precede the sentinel in its statement.
	before, err := parser.ParseScript(strings.TrimSuffix(last, sentinel))
	return err == nil && len(before) == 0
}

// command is a client command handled by the shell itself rather than by
// the TableEnvironment.
type command uint8

const (
	cmdNone command = iota
	cmdHelp
	cmdQuit
	cmdClear
)

// clientCommand recognises HELP, QUIT, EXIT and CLEAR (any case, blanks
// around ignored) as Flink's SQL client does.
func clientCommand(stmt string) command {
	switch strings.ToUpper(strings.TrimSpace(stmt)) {
	case "HELP":
		return cmdHelp
	case "QUIT", "EXIT":
		return cmdQuit
	case "CLEAR":
		return cmdClear
	}
	return cmdNone
}

// HelpText is what HELP; prints: Flink's layout (the command, two tabs,
// what it does) for the statements tablerun runs. Flink's ADD JAR, REMOVE
// JAR and SHOW JARS are left out (there is no JVM: functions are written
// in Python or JavaScript), and tablerun's own statements and the result
// modes and --format of scripts are listed.
const HelpText = "The following commands are available:\n" +
	"\n" +
	"HELP               \t\tPrints the available commands.\n" +
	"QUIT/EXIT          \t\tQuits the SQL CLI client.\n" +
	"CLEAR              \t\tClears the current terminal.\n" +
	"SET                \t\tSets a session configuration property. Syntax: \"SET '<key>'='<value>';\". Use \"SET;\" for listing all properties.\n" +
	"RESET              \t\tResets a session configuration property. Syntax: \"RESET '<key>';\". Use \"RESET;\" for reset all session properties.\n" +
	"SHOW EFFECTIVE CONFIGURATION\tShows every configuration option with its value and where it comes from (default, file, creation, set).\n" +
	"INSERT INTO        \t\tInserts the results of a SQL SELECT query into a declared table sink.\n" +
	"INSERT OVERWRITE   \t\tInserts the results of a SQL SELECT query into a declared table sink and overwrite existing data.\n" +
	"SELECT             \t\tExecutes a SQL SELECT query (in this process: tablerun is its own cluster).\n" +
	"EXPLAIN            \t\tDescribes the execution plan of a query or table with the given name.\n" +
	"BEGIN STATEMENT SET\t\tBegins a statement set. Syntax: \"BEGIN STATEMENT SET;\"\n" +
	"END                \t\tEnds a statement set. Syntax: \"END;\"\n" +
	"CREATE FUNCTION    \t\tDefines a function written in Python or JavaScript. Syntax: \"CREATE [TEMPORARY] FUNCTION f(x INT) RETURNS INT LANGUAGE PYTHON|JAVASCRIPT AS $$ <code> $$;\"\n" +
	"SHOW JOBS          \t\tLists the jobs of the session; STOP JOB '<id>' [WITH SAVEPOINT | WITH DRAIN] stops one.\n" +
	"\n" +
	"Result modes: SET 'sql-client.execution.result-mode' = 'table' (a live view updated in place), 'changelog' or 'tableau' (each change as it arrives).\n" +
	"Scripts: tablerun -f script.sql (\"-\" for standard input), tablerun -e \"<statements>\"; --format csv|json|arrow writes query results as data to standard output.\n" +
	"Hint: Make sure that a statement ends with \";\" for finalizing (multi-line) statements.\n" +
	"You can also type any Flink SQL statement, please visit https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/overview/ for more details.\n"

// IsTerminated reports whether input ends with a statement terminated by
// ';' (comments may follow), the condition on which the shell runs what was
// typed. Input with an unterminated string, quoted identifier or comment is
// never terminated; blank input is.
func IsTerminated(input string) bool { return complete(input) }
