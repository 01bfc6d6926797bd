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

// HelpText is what HELP; prints, as Flink's SQL client does.
const HelpText = "The following commands are available:\n" +
	"\n" +
	"HELP               \t\tPrints the available commands.\n" +
	"QUIT/EXIT          \t\tQuits the SQL CLI client.\n" +
	"CLEAR              \t\tClears the current terminal.\n" +
	"SET                \t\tSets a session configuration property. Syntax: \"SET '<key>'='<value>';\". Use \"SET;\" for listing all properties.\n" +
	"RESET              \t\tResets a session configuration property. Syntax: \"RESET '<key>';\". Use \"RESET;\" for reset all session properties.\n" +
	"INSERT INTO        \t\tInserts the results of a SQL SELECT query into a declared table sink.\n" +
	"INSERT OVERWRITE   \t\tInserts the results of a SQL SELECT query into a declared table sink and overwrite existing data.\n" +
	"SELECT             \t\tExecutes a SQL SELECT query on the Flink cluster.\n" +
	"EXPLAIN            \t\tDescribes the execution plan of a query or table with the given name.\n" +
	"BEGIN STATEMENT SET\t\tBegins a statement set. Syntax: \"BEGIN STATEMENT SET;\"\n" +
	"END                \t\tEnds a statement set. Syntax: \"END;\"\n" +
	"ADD JAR            \t\tAdds the specified jar file to the submitted jobs' classloader. Syntax: \"ADD JAR '<path_to_filename>.jar'\"\n" +
	"REMOVE JAR         \t\tRemoves the specified jar file from the submitted jobs' classloader. Syntax: \"REMOVE JAR '<path_to_filename>.jar'\"\n" +
	"SHOW JARS          \t\tShows the list of user-specified jar dependencies. This list is impacted by the --jar and --library startup options as well as the ADD/REMOVE JAR commands.\n" +
	"\n" +
	"Hint: Make sure that a statement ends with \";\" for finalizing (multi-line) statements.\n" +
	"You can also type any Flink SQL statement, please visit https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/overview/ for more details.\n"

// IsTerminated reports whether input ends with a statement terminated by
// ';' (comments may follow), the condition on which the shell runs what was
// typed. Input with an unterminated string, quoted identifier or comment is
// never terminated; blank input is.
func IsTerminated(input string) bool { return complete(input) }
