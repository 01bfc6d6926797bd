package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
	c := &scriptCell{Module: "notebook", Source: body}
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
