package wire

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// randomValue writes a valid JSON value of about size bytes: containers
// of containers, strings with escaped quotes, backslashes and brackets,
// long runs of each, so that every block boundary falls somewhere.
func randomValue(r *rand.Rand, b *strings.Builder, size, depth int) {
	if size <= 0 || depth > 40 || r.IntN(4) == 0 {
		switch r.IntN(4) {
		case 0:
			b.WriteString("0")
		case 1:
			b.WriteString(`"`)
			for n := r.IntN(100); n > 0; n-- {
				b.WriteString([]string{`a`, `\"`, `\\`, `[`, `]`, `{`, `}`, `\u005d`, `,`, `\\\"`, strings.Repeat(`\\`, 33), strings.Repeat(`a`, 70)}[r.IntN(12)])
			}
			b.WriteString(`"`)
		case 2:
			b.WriteString("true")
		default:
			b.WriteString(strings.Repeat(" ", r.IntN(3)) + "-1.5e3")
		}
		return
	}
	obj := r.IntN(2) == 0
	b.WriteString(map[bool]string{true: "{", false: "["}[obj])
	n := 1 + r.IntN(8)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		if obj {
			b.WriteString(`"k\"` + strings.Repeat("]", r.IntN(3)) + `":`)
		}
		randomValue(r, b, size/n, depth+1)
	}
	b.WriteString(map[bool]string{true: "}", false: "]"}[obj])
}

// skipFast, passing over long containers by blocks, ends every valid
// value where skipValue does, at every alignment; and every end it
// remembers is that container's end.
func TestSkipBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 1000; n++ {
		var b strings.Builder
		randomValue(r, &b, r.IntN(1<<(8+n%8)), 0)
		v := b.String()
		if v[0] != '[' && v[0] != '{' {
			continue
		}
		pad := strings.Repeat(" ", r.IntN(64))
		var p parser
		p.data = []byte(pad + v + ",")
		want, err := p.skipValue(len(pad))
		if err != nil {
			t.Fatalf("%.200s: %v", v, err)
		}
		got, ferr := p.skipFast(len(pad))
		if ferr != nil || got != want {
			t.Fatalf("%d bytes (%.200s…): skipFast %d (%v), skipValue %d", len(v), v, got, ferr, want)
		}
		for off, end := range p.ends {
			if e, err := p.skipValue(int(off)); err != nil || uint32(e) != end {
				t.Fatalf("remembered %d..%d, skipValue %d (%v)", off, end, e, err)
			}
		}
	}
}

// Any line whose first value skipValue passes over, skipFast passes over
// to the same end.
func FuzzSkipFast(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		var b strings.Builder
		randomValue(r, &b, 2000, 0)
		f.Add([]byte(b.String() + ","))
	}
	f.Add([]byte(`[` + strings.Repeat(`"\\",`, 40) + `0],`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var p parser
		p.data = line
		want, err := p.skipValue(0)
		if err != nil || want == len(line) || (line[0] != '[' && line[0] != '{') {
			return
		}
		if got, ferr := p.skipFast(0); ferr != nil || got != want {
			t.Fatalf("skipFast %d (%v), skipValue %d", got, ferr, want)
		}
	})
}
