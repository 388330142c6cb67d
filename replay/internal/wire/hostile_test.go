package wire

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hostileShapes build one snapshot line of about n units of a hostile
// shape: the cost of decoding each must grow linearly with n.
var hostileShapes = []struct {
	name string
	line func(n int) string
}{
	{"distinct keys", func(n int) string {
		return metaLine(keysOf(n, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) }))
	}},
	{"escaped keys", func(n int) string {
		return metaLine(keysOf(n, func(i int) string { return fmt.Sprintf(`"\u006b%d":0`, i) }))
	}},
	{"one key repeated", func(n int) string { return metaLine(keysOf(n, func(int) string { return `"a":[0,0]` })) }},
	{"keys repeated in turn", func(n int) string {
		return metaLine(keysOf(n, func(i int) string { return fmt.Sprintf(`"k%d":[0]`, i%500) }))
	}},
	{"escaped keys repeated in turn", func(n int) string {
		return metaLine(keysOf(n, func(i int) string { return fmt.Sprintf(`"\u006b%d":0`, i%3000) }))
	}},
	{"repeats nested", func(n int) string {
		return metaLine(`"x":{"y":{` + keysOf(n, func(i int) string { return fmt.Sprintf(`"k%d":{"a":0,"a":1}`, i%50) }) + `}}`)
	}},
	{"many tiny values", func(n int) string {
		return hostileLine(`[` + keysOf(n/100+1, func(int) string { return `[` + strings.Repeat(`0,`, 99) + `0]` }) + `]`)
	}},
	{"messages repeated", func(n int) string {
		return strings.Replace(hostileLine(`[]`), `"messages":[]`, keysOf(n/10+1, func(i int) string {
			return `"messages":[0,0,0,0,0,0,0,0,0],"status":"complete"`
		}), 1)
	}},
	{"values nested in repeats", func(n int) string {
		// Every level repeats its key, so the second reading of the
		// record (past recordCap values) reads each level's first pass.
		return metaLine(`"d":` + strings.Repeat(`{"a":1,"a":`, 29) + `[` + strings.Repeat(`0,`, n) + `0]` + strings.Repeat(`}`, 29))
	}},
	{"deep nesting", func(n int) string {
		return metaLine(`"d":` + strings.Repeat(`{"a":[`, n) + strings.Repeat(`]}`, n))
	}},
	{"huge message", func(n int) string {
		return hostileLine(`[{"id":"m","role":"user","content":"` + strings.Repeat("word ", 20*n) +
			`","status":"complete","createdAt":"2026-07-11T03:00:01.000Z"}]`)
	}},
	{"long escape runs", func(n int) string {
		return metaLine(`"` + strings.Repeat(`\u00e9`, n) + `":"` + strings.Repeat(`\n`, n) + `"`)
	}},
}

func keysOf(n int, member func(int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = member(i)
	}
	return strings.Join(parts, ",")
}

func hostileLine(messages string) string {
	return `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e","sessionId":"s","turnId":"t","sequence":1,` +
		`"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{"status":"complete",` +
		`"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":` + messages + `}}`
}

func metaLine(members string) string {
	return hostileLine(`[{"id":"m","role":"user","content":"hi","status":"complete",` +
		`"createdAt":"2026-07-11T03:00:01.000Z","metadata":{` + members + `}}]`)
}

// decodeCost decodes line and returns the parser's count of steps that
// could grow faster than the line, and the tape's capacity afterwards.
func decodeCost(line string, restartAt int) (work, tape int) {
	d := Decoder{Messages: true}
	d.p.restartAt = restartAt
	var ev Event
	d.Decode([]byte(line), &ev)
	return d.p.work, cap(d.p.tape)
}

// Doubling the input at most doubles the work, and the tape never grows
// past a fixed size: both are counted, not timed, so the test is exact.
// The sizes start past recordCap, where the first pass gives way to the
// prescan once.
func TestHostileShapesAreLinear(t *testing.T) {
	for _, s := range hostileShapes {
		t.Run(s.name, func(t *testing.T) {
			for _, restart := range []int{0, 1} {
				prevWork, prevLen := 0, 0
				for n := 50000; n <= 200000; n *= 2 {
					line := s.line(n)
					work, tape := decodeCost(line, restart)
					if prevWork > 0 && float64(work) > 2.2*float64(prevWork)*float64(len(line))/float64(2*prevLen)+100 {
						t.Errorf("restart=%d n=%d: work %d after %d at half the size: super-linear", restart, n, work, prevWork)
					}
					if work > 20*len(line) {
						t.Errorf("restart=%d n=%d: work %d for %d bytes", restart, n, work, len(line))
					}
					if tape > 2*recordCap+1024 {
						t.Errorf("restart=%d n=%d: tape of %d nodes", restart, n, tape)
					}
					prevWork, prevLen = work, len(line)
				}
			}
		})
	}
}

// The two ways of parsing a message record, keeping every member and
// dropping repeats as they come, or finding the survivors first, must
// agree on every line.
func TestPrescanAgrees(t *testing.T) {
	lines := []string{
		metaLine(`"a":1e999,"a":1`),
		metaLine(`"a":1,"a":1e999`),
		metaLine(`"a":1e999,"b":0,"a":1`),
		metaLine(`"` + strings.Repeat("x", 300) + `":0,"` + strings.Repeat("x", 300) + `":0`),
		metaLine(`"` + strings.Repeat("x", 300) + `":0,"\u0078` + strings.Repeat("x", 299) + `":0`),
		metaLine(`"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `,"a":0`),
		metaLine(`"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `,"b":0`),
		metaLine(keysOf(10001, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })),
		metaLine(keysOf(9990, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })),
		metaLine(keysOf(20000, func(i int) string { return fmt.Sprintf(`"k%d":0`, i%9990) })),
		metaLine(`"big":[` + keysOf(9999, func(int) string { return "0" }) + `],"big":0`),
		metaLine(`"big":[` + keysOf(9999, func(int) string { return "0" }) + `],"small":0`),
		metaLine(`"a":"\ud800","\u0061":"x"`),
		metaLine(`"\ud800":1e999,"\udc00":0`),
		metaLine(`"\ud800":1e999,"\ud800":0`),
	}
	long := strings.Repeat("x", 600)
	lines = append(lines,
		metaLine(`"`+long+`":1e999,"`+long+`":0`),
		metaLine(`"`+long+`":1e999,"\u0078`+long[1:]+`":0`),
		metaLine(`"`+long+`":0,"`+long+`y":1e999`))
	// Around the value bound: the record and its version count 2, the
	// messages array 1, the message and its six members 7, metadata 1.
	for _, n := range []int{9988, 9989, 9990, 9991} {
		lines = append(lines, metaLine(keysOf(n, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })+`,"k0":0`))
	}
	for _, line := range lines {
		var a, b Decoder
		b.p.restartAt = 1
		var ev Event
		ea, eb := a.Decode([]byte(line), &ev), b.Decode([]byte(line), &ev)
		if (ea == nil) != (eb == nil) || (ea != nil && ea.Code != eb.Code) {
			t.Errorf("%.80s…: first pass %v, prescan %v", line, ea, eb)
		}
	}
}

// Keys too long to be valid are indexed by digest and cut in problem
// paths: a repeat still drops the earlier member, and a detail stays short.
func TestLongKeys(t *testing.T) {
	long := strings.Repeat("k", 1<<20)
	var d Decoder
	var ev Event
	if err := d.Decode([]byte(metaLine(`"`+long+`":1e999,"\u006b`+long[1:]+`":0`)), &ev); err == nil || !strings.Contains(err.Detail(), "longer than 256") {
		t.Fatalf("a surviving 1 MiB key: %v", err)
	}
	err := d.Decode([]byte(metaLine(`"`+long+`":0,"a":1e999`)), &ev)
	if err == nil {
		t.Fatal("valid")
	}
	if len(err.Detail()) > 200 {
		t.Errorf("detail of %d bytes: %.100s…", len(err.Detail()), err.Detail())
	}
	if cap(d.p.scratch) > 1<<20 || cap(d.p.scratch2) > 1<<20 {
		t.Errorf("scratch buffers of %d and %d bytes kept", cap(d.p.scratch), cap(d.p.scratch2))
	}
}

// skipFast finds the end of every valid value where skipValue does,
// whatever its brackets, strings and escapes.
func TestSkipFast(t *testing.T) {
	values := []string{
		`0`, `-1.5e3`, `true`, `null`, `"a"`, `"a\"b"`, `"\\"`, `"{[\"]}"`, `"]},"`,
		`[]`, `{}`, `[0,1,[2,[3]]]`, `{"a":{"b":[1,"}"]},"c":"\\\""}`, `[{"a":"[[["}]`,
		`["\u005d", "\u007d"]`, `[ 1 , 2 ]`, `{ "k" : [ ] }`, `[` + strings.Repeat(`0,`, 100) + `0]`,
		strings.Repeat(`{"a":[`, 20) + `1` + strings.Repeat(`]}`, 20),
	}
	for _, v := range values {
		for _, tail := range []string{"", ",", "}", "]", " ,"} {
			var p parser
			p.data = []byte(v + tail)
			want, err := p.skipValue(0)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			got, ferr := p.skipFast(0)
			if tail == "" && got == 0 && ferr != nil && want == len(v) {
				// A scalar at the very end has no delimiter: the fast skip
				// leaves it to skipValue, as survivors does.
				if v[0] != '"' && v[0] != '[' && v[0] != '{' {
					continue
				}
			}
			if ferr != nil || got != want {
				t.Errorf("%q: skipFast %d (%v), skipValue %d", v+tail, got, ferr, want)
			}
		}
	}
}

// A skip that starts inside a container an earlier skip passed over finds
// the end the earlier one remembered, the same end skipValue finds; and a
// line remembers few ends, none of them from the line before.
func TestSkipFastRemembers(t *testing.T) {
	inner := `{"y":[` + strings.Repeat(`"]}\"",{"a":[1]},`, endsMin/8) + `0]}`
	value := `{"x":` + inner + `,"z":[` + inner + `]}`
	var p parser
	p.data = []byte(value + `,`)
	if _, err := p.skipFast(0); err != nil {
		t.Fatal(err)
	}
	if len(p.ends) != 6 {
		t.Errorf("%d ends remembered, want 6: the value, z's array, both inner objects and their arrays", len(p.ends))
	}
	for off := range p.ends {
		want, err := p.skipValue(int(off))
		if got, ferr := p.skipFast(int(off)); err != nil || ferr != nil || got != want {
			t.Errorf("at %d: skipFast %d (%v), skipValue %d (%v)", off, got, ferr, want, err)
		}
	}
	for _, s := range hostileShapes {
		var d Decoder
		var ev Event
		line := s.line(200000)
		d.Decode([]byte(line), &ev)
		if max := (maxRecordDepth + len(d.p.opens)) * len(line) / endsMin; len(d.p.ends) > max {
			t.Errorf("%s: %d ends remembered for %d bytes", s.name, len(d.p.ends), len(line))
		}
		d.Decode([]byte(hostileLine(`[]`)), &ev)
		if len(d.p.ends) != 0 {
			t.Errorf("%s: %d ends kept for the next line", s.name, len(d.p.ends))
		}
	}
}

// A long value is quoted in a problem cut at the start of a character:
// the excerpt shows none of the bytes of half a character, which strconv
// would quote as bytes the value does not have.
func TestExcerptCutsWholeCharacters(t *testing.T) {
	for pad := 55; pad <= 62; pad++ {
		code := strings.Repeat("A", pad) + "界界界界"
		line := `{"protocol":"agentskit.chat.turn","version":1,"event":"server.turn.diagnostic","sessionId":"s","turnId":"t",` +
			`"eventId":"e","sequence":1,"emittedAt":"2026-07-11T03:00:00.000Z","payload":{"version":1,"code":"` + code + `","message":"m","retryable":false}}`
		var d Decoder
		var ev Event
		err := d.Decode([]byte(line), &ev)
		if err == nil {
			t.Fatalf("code %q: valid", code)
		}
		detail := err.Detail()
		if strings.Contains(detail, `\x`) || !strings.Contains(detail, `..."`) {
			t.Errorf("code of %d A's and 界: %s", pad, detail)
		}
	}
}

// A record with nothing for the checker's walk to find but its nodes is
// not walked (parser.recOdd): decoding every line of the conformance
// cases, the sample captures, the hostile shapes and a line of each odd
// kind gives the same event and the same problems as walking it.
func TestRecordWalkSkipped(t *testing.T) {
	lines := []string{
		metaLine(`"a":0,"b":0,"a":1`),                // a dead member
		metaLine(`"a":1e999`), metaLine(`"a":9E308`), // numbers that overflow
		metaLine(`"a":1e2`), metaLine(`"a":` + strings.Repeat("9", 309)), metaLine(`"a":-` + strings.Repeat("9", 308)),
		metaLine(`"` + strings.Repeat("k", 257) + `":0`), metaLine(`"` + strings.Repeat("k", 256) + `":0`),
		metaLine(`"` + strings.Repeat(`\u00e9`, 257) + `":0`), metaLine(`"` + strings.Repeat("é", 200) + `":0`),
		metaLine(`"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40)), // nested too deep
		metaLine(keysOf(10001, func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })),
		metaLine(`"a":[` + keysOf(10001, func(int) string { return "0" }) + `]`),
		metaLine(`"a":[` + keysOf(9990, func(int) string { return "0" }) + `]`),
		metaLine(`"a":[` + keysOf(9995, func(int) string { return "0" }) + `]`),
		hostileLine(`1e999`), hostileLine(`[]`), hostileLine(`{}`), hostileLine(`"x"`),
	}
	for _, s := range hostileShapes {
		lines = append(lines, s.line(40), s.line(20000))
	}
	files, _ := filepath.Glob("../../../testdata/*.jsonl")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	if data, err := os.ReadFile("../../../testdata/conformance/decode.jsonl"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			var c struct{ Line string }
			if json.Unmarshal([]byte(l), &c) == nil {
				lines = append(lines, c.Line)
			}
		}
	}
	if len(lines) < 1000 {
		t.Fatalf("only %d lines", len(lines))
	}
	for _, restart := range []int{0, 1} {
		var fast, walk Decoder
		fast.Messages, walk.Messages = true, true
		fast.p.restartAt, walk.p.restartAt = restart, restart
		walk.p.alwaysWalk = true
		for _, line := range lines {
			var a, b Event
			ea, eb := fast.Decode([]byte(line), &a), walk.Decode([]byte(line), &b)
			if !reflect.DeepEqual(ea, eb) || !reflect.DeepEqual(a, b) {
				t.Fatalf("%.200s… (restart at %d):\nskipped: %v %+v\nwalked:  %v %+v", line, restart, ea, a.Snapshot.MessageCount, eb, b.Snapshot.MessageCount)
			}
		}
	}
}

// A member a later one repeats counts for nothing, in the fields the
// checker looks up by name as in the rest: parts whose type or text is
// repeated are checked by the last, in a small object and in one of
// enough members to be indexed, parsed both ways.
func TestRepeatedPartFields(t *testing.T) {
	fill := keysOf(20, func(i int) string { return fmt.Sprintf(`"f%d":0`, i) }) + ","
	part := func(members string) string {
		return hostileLine(`[{"id":"m","role":"user","content":"hi","status":"complete",` +
			`"createdAt":"2026-07-11T03:00:01.000Z","parts":[{` + members + `}]}]`)
	}
	for _, c := range []struct {
		members string
		valid   bool
	}{
		// A repeat right after the member it repeats cuts that off the
		// tape; one with another member between marks it dead.
		{`"type":"text","text":"x"`, true},
		{`"type":"bogus","type":"text","text":"x"`, true},
		{`"type":"bogus","text":"x","type":"text"`, true},
		{`"type":"text","type":"bogus","text":"x"`, false},
		{`"type":"text","text":"x","type":"bogus"`, false},
		{`"text":1,"type":"text","text":"x"`, true},
		{`"type":"text","text":"x","text":1`, false},
		{`"text":"x","type":"text","text":1`, false},
		{`"type":"text","text":"x","type":"text","text":1,"text":"y"`, true},
	} {
		for _, members := range []string{c.members, fill + c.members} {
			for _, restart := range []int{0, 1} {
				var d Decoder
				d.p.restartAt = restart
				var ev Event
				if err := d.Decode([]byte(part(members)), &ev); (err == nil) != c.valid {
					t.Errorf("parts [{%.60s}] (restart at %d): valid %v, decoded with %v", members, restart, c.valid, err)
				}
			}
		}
	}
}

// A key spelled with escapes is the key it spells, in a message's fields
// as everywhere: a message whose every key starts with a \u escape
// decodes as the same message with plain keys.
func TestEscapedMessageKeys(t *testing.T) {
	msg := `{"id":"m","role":"user","content":"hi","status":"complete","createdAt":"2026-07-11T03:00:01.000Z",` +
		`"toolCallId":"c","parts":[{"type":"text","text":"x"}],"metadata":{"k":1}}`
	escaped := msg
	for _, k := range []string{"id", "role", "content", "status", "createdAt", "toolCallId", "parts", "metadata"} {
		escaped = strings.Replace(escaped, `"`+k+`":`, fmt.Sprintf(`"\u%04x%s":`, k[0], k[1:]), 1)
	}
	if escaped == msg {
		t.Fatal("nothing escaped")
	}
	var d Decoder
	d.Messages = true
	var plain, esc Event
	if err := d.Decode([]byte(hostileLine(`[`+msg+`]`)), &plain); err != nil {
		t.Fatal(err)
	}
	if err := d.Decode([]byte(hostileLine(`[`+escaped+`]`)), &esc); err != nil {
		t.Fatalf("%s: %v", escaped, err)
	}
	if !reflect.DeepEqual(plain.Snapshot.Messages, esc.Snapshot.Messages) {
		t.Errorf("plain keys: %+v\nescaped:    %+v", plain.Snapshot.Messages, esc.Snapshot.Messages)
	}
}
