package diff

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// MaxJSONDepth bounds the recursion of JSON: below it, subtrees are
// compared as wholes. The protocol caps nesting at 32, so this only
// matters for input that did not come through the decoder.
const MaxJSONDepth = 64

// PathChange is one JSON value added, removed or changed at Path, a
// JSONPath such as $.tags[1] or $["odd key"]. Old and New are compact
// JSON, empty on the side where the value is absent.
type PathChange struct {
	Kind     ChangeKind
	Path     string
	Old, New string
}

// JSON compares two raw JSON texts by path. An empty text means the
// value is absent, so a whole value appearing is one change at "$".
// Objects are compared key by key and arrays index by index; the cost is
// linear in the size of the two values.
func JSON(old, new string) []PathChange {
	if old == new {
		return nil
	}
	a, aok := parseJSON(old)
	b, bok := parseJSON(new)
	var out []PathChange
	switch {
	case !aok && !bok:
		return nil
	case !aok:
		return append(out, PathChange{Kind: Added, Path: "$", New: compact(b)})
	case !bok:
		return append(out, PathChange{Kind: Removed, Path: "$", Old: compact(a)})
	}
	walkJSON(&out, "$", a, b, 0)
	return out
}

// parseJSON decodes raw JSON keeping numbers as written. Text that is not
// JSON (which the decoder never lets through) is kept as a string, so it
// still compares.
func parseJSON(s string) (any, bool) {
	if s == "" {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return s, true
	}
	return v, true
}

func walkJSON(out *[]PathChange, path string, a, b any, depth int) {
	if depth < MaxJSONDepth {
		switch av := a.(type) {
		case map[string]any:
			if bv, ok := b.(map[string]any); ok {
				walkObject(out, path, av, bv, depth)
				return
			}
		case []any:
			if bv, ok := b.([]any); ok {
				walkArray(out, path, av, bv, depth)
				return
			}
		}
	}
	if isScalar(a) && isScalar(b) && (a == b || sameNumber(a, b)) {
		return
	}
	if ca, cb := compact(a), compact(b); ca != cb {
		*out = append(*out, PathChange{Kind: Changed, Path: path, Old: ca, New: cb})
	}
}

// isScalar says whether a decoded value is comparable with ==.
func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func walkObject(out *[]PathChange, path string, a, b map[string]any, depth int) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		av, aok := a[k]
		bv, bok := b[k]
		p := path + keyPath(k)
		switch {
		case !aok:
			*out = append(*out, PathChange{Kind: Added, Path: p, New: compact(bv)})
		case !bok:
			*out = append(*out, PathChange{Kind: Removed, Path: p, Old: compact(av)})
		default:
			walkJSON(out, p, av, bv, depth+1)
		}
	}
}

func walkArray(out *[]PathChange, path string, a, b []any, depth int) {
	for i := 0; i < len(a) || i < len(b); i++ {
		p := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case i >= len(a):
			*out = append(*out, PathChange{Kind: Added, Path: p, New: compact(b[i])})
		case i >= len(b):
			*out = append(*out, PathChange{Kind: Removed, Path: p, Old: compact(a[i])})
		default:
			walkJSON(out, p, a[i], b[i], depth+1)
		}
	}
}

// keyPath is the JSONPath step for an object key: .key for plain names,
// ["key"] otherwise.
func keyPath(k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	return "[" + compact(k) + "]"
}

// sameNumber treats 1, 1.0 and 1e0 as one value, as JSON.parse does.
func sameNumber(a, b any) bool {
	an, ok1 := a.(json.Number)
	bn, ok2 := b.(json.Number)
	if !ok1 || !ok2 {
		return false
	}
	x, err1 := an.Float64()
	y, err2 := bn.Float64()
	return err1 == nil && err2 == nil && x == y
}

// compact encodes a decoded value as compact JSON, without HTML escapes.
func compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
