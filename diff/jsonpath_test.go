package diff

import (
	"reflect"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []PathChange
	}{
		{"equal", `{"a":1}`, `{"a":1}`, nil},
		{"whitespace and order", `{"a":1,"b":[true]}`, ` { "b" : [ true ] , "a" : 1 } `, nil},
		{"number spelling", `{"a":1}`, `{"a":1.0}`, nil},
		{"appears", ``, `{"a":1}`, []PathChange{{Added, "$", "", `{"a":1}`}}},
		{"disappears", `[1]`, ``, []PathChange{{Removed, "$", `[1]`, ""}}},
		{"scalar changed", `{"a":{"b":1}}`, `{"a":{"b":2}}`, []PathChange{{Changed, "$.a.b", "1", "2"}}},
		{"key added and removed", `{"a":1}`, `{"b":1}`, []PathChange{{Removed, "$.a", "1", ""}, {Added, "$.b", "", "1"}}},
		{"array grows", `["x"]`, `["x","<y>"]`, []PathChange{{Added, "$[1]", "", `"<y>"`}}},
		{"array shrinks", `["x","y"]`, `["x"]`, []PathChange{{Removed, "$[1]", `"y"`, ""}}},
		{"type changes", `{"a":[1]}`, `{"a":{"0":1}}`, []PathChange{{Changed, "$.a", "[1]", `{"0":1}`}}},
		{"odd key", `{"a b":1}`, `{"a b":2}`, []PathChange{{Changed, `$["a b"]`, "1", "2"}}},
		{"last duplicate key wins", `{"a":1,"a":2}`, `{"a":2}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JSON(tt.old, tt.new); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("JSON() = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestJSONDepthCap checks that nesting beyond MaxJSONDepth is compared as
// one value at the cap instead of recursing further.
func TestJSONDepthCap(t *testing.T) {
	deep := func(leaf string) string {
		return strings.Repeat(`{"k":`, MaxJSONDepth+10) + leaf + strings.Repeat("}", MaxJSONDepth+10)
	}
	got := JSON(deep("1"), deep("2"))
	if len(got) != 1 {
		t.Fatalf("got %d changes, want 1", len(got))
	}
	if n := strings.Count(got[0].Path, ".k"); n != MaxJSONDepth {
		t.Fatalf("change at depth %d, want %d", n, MaxJSONDepth)
	}
}
