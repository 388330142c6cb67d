package replay

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestDockerEntryAsEncodingJSON checks that the json-file entry decoder
// takes and refuses what encoding/json does, with the same log, stream
// and time: keys in any case, duplicates, nulls, escapes, invalid UTF-8,
// members of the wrong type.
func TestDockerEntryAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"log":"a\n","stream":"stdout","time":"t"}`,
		`{"LOG":"a\n","Stream":"stderr","TIME":"t"}`,
		`{"ſtream":"stderr","log":"x"}`,
		`{"log":"a","log":"b\n"}`,
		`{"log":"a","log":null}`,
		`{"log":null,"log":"c"}`,
		`{"log":null}`,
		`{"stream":"stderr","stream":null,"log":""}`,
		`{"log":5}`,
		`{"log":"a","stream":5}`,
		`{"log":"a","time":[]}`,
		`{"log":"a","other":{"x":[1,2,{"y":null}]}}`,
		`{"log":"\u00e9\ud83d\ude00\ud800x\\\"\/\b\f\n\r\t"}`,
		"{\"log\":\"\xff\xfe\xff\xfe\xff\xfe\xff\xfe\xff\xfe\xff\xfe\xff\xfe\xff\xfe\"}",
		"{\"log\":\"ok\xc3\"}",
		`{"log":"a"} x`,
		`{"log":"a"`,
		`[{"log":"a"}]`,
		`null`,
		`"log"`,
		` {"log":"a\n"} `,
		`{"log":"` + strings.Repeat("\\u0041", 3000) + `"}`,
		`{"log":"` + strings.Repeat("é", 40000) + `"}`,
		`{"log":"a","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	} {
		var want struct {
			Log          *string
			Stream, Time string
		}
		wantOK := json.Unmarshal([]byte(in), &want) == nil && want.Log != nil
		d := &dockerFramer{}
		gotOK := d.decode([]byte(in), 1<<30)
		name := in[:min(len(in), 40)]
		if gotOK != wantOK {
			t.Errorf("%q: entry %v, encoding/json %v", name, gotOK, wantOK)
			continue
		}
		if !wantOK {
			continue
		}
		e := d.entry
		if string(e.log) != *want.Log || e.size != int64(len(*want.Log)) || e.stderr != (want.Stream == "stderr") || e.time != want.Time {
			t.Errorf("%q: log %q (%d bytes), stderr %v, time %q; encoding/json %q, %q, %q",
				name, e.log, e.size, e.stderr, e.time, *want.Log, want.Stream, want.Time)
		}
	}
}

// TestDockerEntryInPlace checks that a whole message of one json-file
// entry is unescaped without a copy of its own: encoding/json took three
// (its string, the bytes of it, the joined message), which put a 60 MB
// entry past 64 MiB + twice its line.
func TestDockerEntryInPlace(t *testing.T) {
	const size = 8 << 20
	msg := strings.Repeat(`w1234 "quoted" `, size/15)
	entry, err := json.Marshal(map[string]string{"log": msg + "\n", "stream": "stdout", "time": "t"})
	if err != nil {
		t.Fatal(err)
	}
	d := &dockerFramer{maxLine: DefaultMaxLine}
	d.line(Line{Data: bytes.Clone(entry[:20])}) // the framer's own buffers
	data := bytes.Clone(entry)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rec, ok := d.line(Line{Data: data, Len: int64(len(data)), Num: 1})
	runtime.ReadMemStats(&after)
	if !ok || rec.bad != nil || rec.TooLong || string(rec.Data) != msg {
		t.Fatalf("record: ok %v, bad %v, too long %v, %d bytes", ok, rec.bad, rec.TooLong, len(rec.Data))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > size/8 {
		t.Errorf("%d bytes allocated for a message of %d", n, len(msg))
	}
}
