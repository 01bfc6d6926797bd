package core

import (
	"fmt"
	"os"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/udf"
)

// declaredSpec finds the "# sql: fn(…) RETURNS …" (or "// sql: …")
// declaration of the function fn in a script file, the way script modules
// declare their functions (modules.go), so that Flink's signature-less
// form CREATE FUNCTION f AS 'file.fn' LANGUAGE PYTHON works for declared
// functions. ok is false when the file declares no function fn.
func declaredSpec(file, fn, lang string) (spec udf.Spec, ok bool, err error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return udf.Spec{}, false, fmt.Errorf("script file: %w", err)
	}
	for _, decl := range sqlDecl.FindAllStringSubmatch(string(src), -1) {
		s, err := moduleSpec(decl[1], lang, file, string(src))
		if err != nil {
			return udf.Spec{}, true, fmt.Errorf("%s: %w", file, err)
		}
		if function.Normalize(s.Name) == function.Normalize(fn) {
			s.Func = fn
			return s, true, nil
		}
	}
	return udf.Spec{}, false, nil
}
