package function

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// A definite path (no wildcard) over a valid document is applied to the
// JSON text directly: the document is validated with json.Valid (no
// allocation), members and elements on the path are found by skipping the
// text of the others, and only the selected value is decoded. The results
// (values, found, errors) are those of parseJSON followed by jsonPath.eval;
// an invalid document goes through parseJSON for its exact error.

var jsonPathCache = newLRU[string, *jsonPath](256)

// parseJSONPathCached parses a path once per distinct text.
func parseJSONPathCached(p string) (*jsonPath, error) {
	if jp, ok := jsonPathCache.get(p); ok {
		return jp, nil
	}
	jp, err := parseJSONPath(p)
	if err != nil {
		return nil, err
	}
	jsonPathCache.put(p, jp)
	return jp, nil
}

func jsonSkipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonSkipString returns the index after the string starting at s[i] ('"').
func jsonSkipString(s string, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(s)
}

// jsonSkipValue returns the index after the value starting at s[i] of a
// valid document.
func jsonSkipValue(s string, i int) int {
	switch s[i] {
	case '"':
		return jsonSkipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = jsonSkipString(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(s)
	}
	for i < len(s) && !strings.ContainsRune(",}] \t\n\r", rune(s[i])) {
		i++
	}
	return i
}

// jsonKeyEquals compares the raw string token s[ks:ke] (quotes included)
// with key.
func jsonKeyEquals(raw, key string) bool {
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body == key
	}
	var k string
	if err := json.Unmarshal([]byte(raw), &k); err != nil {
		return false
	}
	return k == key
}

// jsonDecodeText decodes the text of one value as parseJSON does, without
// a decoder for scalars.
func jsonDecodeText(t string) (any, error) {
	switch {
	case t == "null":
		return jsonNull, nil
	case t == "true":
		return true, nil
	case t == "false":
		return false, nil
	case t[0] == '"':
		body := t[1 : len(t)-1]
		if strings.IndexByte(body, '\\') < 0 && utf8.ValidString(body) {
			return body, nil
		}
		var s string
		if err := json.Unmarshal([]byte(t), &s); err != nil {
			return nil, err
		}
		return s, nil
	case t[0] == '{' || t[0] == '[':
		return parseJSON(t)
	}
	return json.Number(t), nil
}

// jsonValid reports whether s is one valid JSON document, without copying.
func jsonValid(s string) bool {
	return json.Valid(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// lazyEval applies a definite path to a valid JSON document's text.
func (jp *jsonPath) lazyEval(s string) (any, bool, error) {
	i := jsonSkipWS(s, 0)
	for _, st := range jp.steps {
		switch st.kind {
		case 'k':
			if s[i] != '{' {
				if jp.strict {
					return nil, false, fmt.Errorf("No results for path: $['%s']", st.key)
				}
				return nil, false, nil
			}
			i = jsonSkipWS(s, i+1)
			found := false
			for s[i] != '}' {
				ke := jsonSkipString(s, i)
				match := jsonKeyEquals(s[i:ke], st.key)
				vs := jsonSkipWS(s, jsonSkipWS(s, ke)+1) // past ':'
				if match {
					i, found = vs, true
					break
				}
				i = jsonSkipWS(s, jsonSkipValue(s, vs))
				if s[i] == ',' {
					i = jsonSkipWS(s, i+1)
				}
			}
			if !found {
				if jp.strict {
					return nil, false, fmt.Errorf("No results for path: $['%s']", st.key)
				}
				return nil, false, nil
			}
		case 'i':
			if s[i] != '[' {
				if jp.strict {
					return nil, false, fmt.Errorf("No results for path: $[%d]", st.index)
				}
				return nil, false, nil
			}
			i = jsonSkipWS(s, i+1)
			n, found := 0, false
			for s[i] != ']' {
				if n == st.index {
					found = true
					break
				}
				i = jsonSkipWS(s, jsonSkipValue(s, i))
				if s[i] == ',' {
					i = jsonSkipWS(s, i+1)
				}
				n++
			}
			if !found {
				if jp.strict {
					return nil, false, fmt.Errorf("No results for path: $[%d]", st.index)
				}
				return nil, false, nil
			}
		default:
			return nil, false, fmt.Errorf("internal: lazy JSON path with step %q", st.kind)
		}
	}
	v, err := jsonDecodeText(s[i:jsonSkipValue(s, i)])
	if err != nil {
		return nil, false, fmt.Errorf("Invalid JSON text: %w", err)
	}
	return v, true, nil
}
