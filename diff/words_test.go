package diff

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/internal/hostile"
)

// sides rebuilds both texts from an edit script.
func sides(ed []WordEdit) (old, new string) {
	var a, b strings.Builder
	for _, e := range ed {
		if e.Op != WordInsert {
			a.WriteString(e.Text)
		}
		if e.Op != WordDelete {
			b.WriteString(e.Text)
		}
	}
	return a.String(), b.String()
}

func TestWords(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []WordEdit
	}{
		{"equal", "a b", "a b", []WordEdit{{WordEqual, "a b"}}},
		{"both empty", "", "", nil},
		{"from empty", "", "a b", []WordEdit{{WordInsert, "a b"}}},
		{"to empty", "a b", "", []WordEdit{{WordDelete, "a b"}}},
		{"one word", "the cat sat", "the dog sat", []WordEdit{{WordEqual, "the "}, {WordDelete, "cat"}, {WordInsert, "dog"}, {WordEqual, " sat"}}},
		{"phrase folded", "let me search for flights", "let me look up flights",
			[]WordEdit{{WordEqual, "let me "}, {WordDelete, "search for"}, {WordInsert, "look up"}, {WordEqual, " flights"}}},
		{"insert in middle", "a c", "a b c", []WordEdit{{WordEqual, "a "}, {WordInsert, "b "}, {WordEqual, "c"}}},
		{"newline is a space", "a\nb", "a\nc", []WordEdit{{WordEqual, "a\n"}, {WordDelete, "b"}, {WordInsert, "c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Words(tt.old, tt.new)
			if !ok {
				t.Fatal("Words gave up")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Words() = %+v, want %+v", got, tt.want)
			}
			if o, n := sides(got); o != tt.old || n != tt.new {
				t.Fatalf("edits rebuild %q / %q", o, n)
			}
		})
	}
}

// TestWordsRebuild checks on scrambled texts that the script is exact on
// both sides, whatever Myers chose.
func TestWordsRebuild(t *testing.T) {
	words := strings.Fields("a b c d e f g the gateway restarted at 03:00")
	for seed := 1; seed < 200; seed++ {
		var a, b []string
		x := uint32(seed)
		for i := 0; i < 30; i++ {
			x = x*1103515245 + 12345
			a = append(a, words[int(x>>8)%len(words)])
			x = x*1103515245 + 12345
			if (x>>8)%3 != 0 {
				b = append(b, a[len(a)-1])
			} else {
				b = append(b, words[int(x>>4)%len(words)])
			}
		}
		old, new := strings.Join(a, " "), strings.Join(b, "  ")
		ed, ok := Words(old, new)
		if !ok {
			t.Fatalf("seed %d: gave up", seed)
		}
		if o, n := sides(ed); o != old || n != new {
			t.Fatalf("seed %d: rebuild %q / %q", seed, o, n)
		}
	}
}

// TestWordsCap checks that texts too far apart give up instead of running
// quadratic.
func TestWordsCap(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < MaxWordEdits; i++ {
		a.WriteString("x ")
		b.WriteString("y ")
	}
	if _, ok := Words("start "+a.String(), "start "+b.String()); ok {
		t.Fatal("Words diffed beyond MaxWordEdits")
	}
	if _, ok := Words("start "+a.String()[:200], "start "+b.String()[:200]); !ok {
		t.Fatal("Words gave up on a small diff")
	}
}

// allocated is the number of bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestWordsBounded checks on doubling texts of distinct words that a word
// diff allocates no more for longer texts: past MaxWordBytes between the
// common ends it gives up after a byte scan, and a small edit inside huge
// texts is diffed on its middle only.
func TestWordsBounded(t *testing.T) {
	edit := func(s string) string {
		mid := len(s) / 2
		for s[mid] != ' ' {
			mid++
		}
		return s[:mid] + " inserted" + s[mid:]
	}
	for _, tt := range []struct {
		name   string
		new    func(n int) string
		wantOK bool
	}{
		{"reworded all along", func(n int) string { return hostile.Words(n, 1) }, false},
		{"one word inserted", func(n int) string { return edit(hostile.Words(n, 0)) }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var bytes []uint64
			for _, n := range []int{1 << 20, 2 << 20, 4 << 20} {
				old, new := hostile.Words(n, 0), tt.new(n)
				var ok bool
				bytes = append(bytes, allocated(func() { _, ok = Words(old, new) }))
				if ok != tt.wantOK {
					t.Fatalf("%d bytes: ok = %v, want %v", n, ok, tt.wantOK)
				}
			}
			t.Logf("bytes allocated for 1, 2, 4 MiB: %v", bytes)
			for i, b := range bytes {
				if b > 64<<10 {
					t.Errorf("diffing %d MiB texts allocated %d bytes; want at most 64 KiB whatever their length", 1<<i, b)
				}
			}
		})
	}
}

// TestWordsMiddle checks that the word diff runs on what lies between the
// common ends, whatever their length: a middle just within MaxWordBytes
// is diffed, one just past it is not.
func TestWordsMiddle(t *testing.T) {
	common := strings.Repeat("same ", 100000)
	pair := func(size int) (string, string) {
		x := hostile.Words(size, 0)
		return common + "old " + x + " old " + common, common + "new " + x + " new " + common
	}
	within := MaxWordBytes/2 - len("old  old")
	if ed, ok := Words(pair(within)); !ok || len(ed) != 7 {
		t.Errorf("a middle of MaxWordBytes: ok = %v with %d edits, want 7", ok, len(ed))
	}
	if _, ok := Words(pair(within + 1)); ok {
		t.Error("a middle past MaxWordBytes was diffed")
	}
}
