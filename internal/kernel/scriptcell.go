package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/udf/js"
	"github.com/tablerun/tablerun/udf/python"
)

// scriptCell is a %%python or %%javascript cell: the source of a module of
// user-defined functions.
type scriptCell struct {
	// Lang is PYTHON or JAVASCRIPT.
	Lang string
	// Module is the module name ("notebook" unless the magic line names
	// one); functions are declared AS '<module>.<function>'.
	Module string
	Source string
	// BodyLine is the line of the cell on which Source starts (after the
	// magic line), so that a script line l is cell line BodyLine+l-1.
	BodyLine int
}

var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseScriptCell recognises a cell whose first line is "%%python [module]"
// or "%%javascript [module]" (also "%%js"). It returns nil for other cells.
func parseScriptCell(code string) (*scriptCell, error) {
	trimmed := strings.TrimLeft(code, " \t\r\n")
	if !strings.HasPrefix(trimmed, "%%") {
		return nil, nil
	}
	line, body, _ := strings.Cut(trimmed, "\n")
	fields := strings.Fields(strings.TrimPrefix(line, "%%"))
	if len(fields) == 0 {
		return nil, fmt.Errorf("empty cell magic: use %%%%python [module] or %%%%javascript [module]")
	}
	magicLine := strings.Count(code[:len(code)-len(trimmed)], "\n") + 1
	c := &scriptCell{Module: "notebook", Source: body, BodyLine: magicLine + 1}
	switch strings.ToLower(fields[0]) {
	case "python":
		c.Lang = "PYTHON"
	case "javascript", "js":
		c.Lang = "JAVASCRIPT"
	default:
		return nil, fmt.Errorf("not supported yet: cell magic %%%%%s (%%%%python and %%%%javascript are)", fields[0])
	}
	if len(fields) > 2 {
		return nil, fmt.Errorf("%%%%%s takes at most a module name", fields[0])
	}
	if len(fields) == 2 {
		if !moduleName.MatchString(fields[1]) {
			return nil, fmt.Errorf("module name %q is not an identifier", fields[1])
		}
		c.Module = fields[1]
	}
	return c, nil
}

// ext is the file extension of the cell's language.
func (c *scriptCell) ext() string {
	if c.Lang == "PYTHON" {
		return ".py"
	}
	return ".js"
}

var (
	pyDef = regexp.MustCompile(`(?m)^(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)`)
	jsDef = regexp.MustCompile(`(?m)^\s*(?:export\s+)?(?:async\s+)?(?:function\s*\*?|class)\s+([A-Za-z_$][A-Za-z0-9_$]*)`)
)

// definitions lists the top-level functions and classes of the source.
func (c *scriptCell) definitions() []string {
	re := pyDef
	if c.Lang == "JAVASCRIPT" {
		re = jsDef
	}
	var out []string
	for _, m := range re.FindAllStringSubmatch(c.Source, -1) {
		out = append(out, m[1])
	}
	return out
}

// check compiles the cell's source without running it. A syntax error
// fails the cell (the module is not stored) with the line and column
// within the cell, the line itself and a caret under the column.
func (c *scriptCell) check() *cellError {
	name := c.Module + c.ext()
	var err error
	if c.Lang == "PYTHON" {
		err = python.CheckSyntax(c.Source, name, "")
	} else {
		err = js.CheckSyntax(c.Source, name, "")
	}
	if err == nil {
		return nil
	}
	msg, line, col := err.Error(), 0, 0
	var ue *udf.Error
	if errors.As(err, &ue) {
		msg, line, col = ue.Msg, ue.Line, ue.Col
	}
	ename := "SyntaxError"
	if i := strings.Index(msg, ":"); i > 0 && !strings.Contains(msg[:i], " ") {
		ename = msg[:i]
	}
	where := ""
	if line > 0 {
		where = fmt.Sprintf(" at cell line %d", c.BodyLine+line-1)
		if col > 0 {
			where += fmt.Sprintf(", column %d", col)
		}
	}
	text := fmt.Sprintf("[ERROR] %s module '%s'%s: %s", c.langName(), c.Module, where, msg)
	tb := []string{text}
	if lines := strings.Split(c.Source, "\n"); line > 0 && line <= len(lines) {
		src := strings.TrimRight(lines[line-1], "\r")
		tb = append(tb, src)
		if col > 0 && col <= len([]rune(src))+1 {
			var pad strings.Builder
			for _, r := range []rune(src)[:col-1] {
				if r == '\t' {
					pad.WriteByte('\t')
				} else {
					pad.WriteByte(' ')
				}
			}
			tb = append(tb, pad.String()+"^")
		}
	}
	return &cellError{ename: ename, evalue: strings.TrimPrefix(text, "[ERROR] "), traceback: tb}
}

// langName is the language as people write it.
func (c *scriptCell) langName() string {
	if c.Lang == "PYTHON" {
		return "Python"
	}
	return "JavaScript"
}

// write stores the module in dir and returns the message the cell shows.
func (c *scriptCell) write(dir string) (string, error) {
	path := filepath.Join(dir, c.Module+c.ext())
	if err := os.WriteFile(path, []byte(c.Source), 0o600); err != nil {
		return "", fmt.Errorf("write module %s: %w", c.Module, err)
	}
	lang := "Python"
	if c.Lang == "JAVASCRIPT" {
		lang = "JavaScript"
	}
	defs := c.definitions()
	var b strings.Builder
	fmt.Fprintf(&b, "[INFO] %s module '%s' defined", lang, c.Module)
	if len(defs) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(defs, ", "))
	}
	b.WriteString(".\n")
	example := "f"
	if len(defs) > 0 {
		example = defs[0]
	}
	fmt.Fprintf(&b, "Declare a function with: CREATE TEMPORARY FUNCTION %s(...) RETURNS <type> LANGUAGE %s AS '%s.%s';", example, c.Lang, c.Module, example)
	return b.String(), nil
}
