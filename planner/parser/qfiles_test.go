package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// conformanceDir holds Flink's .q scripts (see its README.md).
const conformanceDir = "/work/shared/conformance/flink-q"

// lexState scans text and reports whether it ends outside strings,
// quoted identifiers and comments.
func lexStateDefault(text string) bool {
	inStr, inQ, inBlock, inLine := false, false, false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inLine:
			if c == '\n' {
				inLine = false
			}
		case inBlock:
			if c == '*' && i+1 < len(text) && text[i+1] == '/' {
				inBlock = false
				i++
			}
		case inStr:
			if c == '\'' {
				inStr = false
			}
		case inQ:
			if c == '`' {
				inQ = false
			}
		case c == '\'':
			inStr = true
		case c == '`':
			inQ = true
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			inLine = true
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			inBlock = true
			i++
		}
	}
	return !inStr && !inQ && !inBlock && !inLine
}

// qStatement is one SQL statement read from a .q file.
type qStatement struct {
	file string
	line int
	sql  string
	// output is the expected output and tag the closing tag (ok, info, error).
	output string
	tag    string
}

// readOutput reads expected output lines up to the next line starting with
// '!' and returns the output, the tag and the index after the tag line.
func readOutput(lines []string, i int) (string, string, int) {
	start := i
	for i < len(lines) && !strings.HasPrefix(lines[i], "!") {
		i++
	}
	tag := ""
	if i < len(lines) {
		tag = strings.TrimPrefix(strings.TrimSpace(lines[i]), "!")
	}
	end := i
	if end > len(lines) {
		end = len(lines)
	}
	return strings.Join(lines[start:end], "\n"), tag, i + 1
}

// readClientQ splits a sql-client .q file following SqlScriptReader.
func readClientQ(t *testing.T, path string) []qStatement {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	var out []qStatement
	for i := 0; i < len(lines); {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			i++
			continue
		}
		start := i
		var sb strings.Builder
		for ; i < len(lines); i++ {
			sb.WriteString(lines[i])
			sb.WriteString("\n")
			if strings.HasSuffix(strings.TrimSpace(lines[i]), ";") && lexStateDefault(strings.TrimRight(sb.String(), "\n")) {
				i++
				break
			}
		}
		st := qStatement{file: filepath.Base(path), line: start + 1, sql: strings.TrimRight(sb.String(), "\n")}
		st.output, st.tag, i = readOutput(lines, i)
		out = append(out, st)
	}
	return out
}

// readGatewayQ splits a sql-gateway .q file: statements end at "!output".
func readGatewayQ(t *testing.T, path string) []qStatement {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	var out []qStatement
	for i := 0; i < len(lines); {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			i++
			continue
		}
		start := i
		var sb strings.Builder
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != "!output"; i++ {
			sb.WriteString(lines[i])
			sb.WriteString("\n")
		}
		i++
		sql := strings.TrimSuffix(strings.TrimSpace(sb.String()), ";")
		st := qStatement{file: filepath.Base(path), line: start + 1, sql: sql}
		st.output, st.tag, i = readOutput(lines, i)
		out = append(out, st)
	}
	return out
}

// TestConformanceScripts parses every statement of Flink's .q scripts; each
// must parse or fail with an error, never panic. Expected-error records
// are included, so not all of them should parse.
func TestConformanceScripts(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skip("conformance scripts not available")
	}
	for _, dialect := range []string{"sql-client", "sql-gateway"} {
		files, err := filepath.Glob(filepath.Join(conformanceDir, dialect, "*.q"))
		require.NoError(t, err)
		total, ok, parseErrors, reservedChecked := 0, 0, 0, 0
		for _, f := range files {
			var stmts []qStatement
			if dialect == "sql-client" {
				stmts = readClientQ(t, f)
			} else {
				stmts = readGatewayQ(t, f)
			}
			for _, s := range stmts {
				total++
				_, err := ParseStatement(s.sql)
				// A record whose expected output is a Flink ParseException
				// must fail with the same message; a successful record must
				// parse unless it is a CLI-only command.
				const marker = "org.apache.flink.sql.parser.impl.ParseException: "
				if k := strings.Index(s.output, marker); k >= 0 {
					want := strings.SplitN(s.output[k+len(marker):], "\n", 2)[0]
					var pe *Error
					require.ErrorAs(t, err, &pe, "%s:%d", s.file, s.line)
					require.Equal(t, strings.TrimSpace(want), pe.Msg, "%s:%d", s.file, s.line)
					parseErrors++
				} else if s.tag != "error" && !strings.EqualFold(strings.TrimSuffix(s.sql, ";"), "help") {
					require.NoError(t, err, "%s:%d: %s", s.file, s.line, s.sql)
				}
				if err == nil {
					if !strings.Contains(s.output, marker) {
						// Flink parsed it: no name in it is one of the
						// words Flink reserves (flinkReserved)
						names, _ := ReservedNames(s.sql)
						require.Empty(t, names, "%s:%d: %s", s.file, s.line, s.sql)
						reservedChecked++
					}
					ok++
					continue
				}
				if testing.Verbose() {
					t.Logf("%s:%d: %v\n    %s", s.file, s.line, err, strings.ReplaceAll(s.sql, "\n", "\n    "))
				}
			}
		}
		t.Logf("%s: %d of %d statements parse; %d expected parse errors matched; %d without a Flink-reserved name", dialect, ok, total, parseErrors, reservedChecked)
	}
}
