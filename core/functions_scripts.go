package core

import (
	"github.com/tablerun/tablerun/udf/js"
	"github.com/tablerun/tablerun/udf/python"
)

// The script runtimes behind LANGUAGE PYTHON and LANGUAGE JAVASCRIPT.
func init() {
	RegisterScriptLanguage("PYTHON", python.Compile)
	RegisterScriptLanguage("JAVASCRIPT", js.Compile)
}
