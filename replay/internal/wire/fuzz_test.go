package wire

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode checks that no line makes the decoder panic, and that what it
// accepts satisfies the rules it claims to check.
func FuzzDecode(f *testing.F) {
	addCorpusSeeds(f)
	var d, walk Decoder
	d.Messages, walk.Messages = true, true
	walk.p.alwaysWalk = true
	f.Fuzz(func(t *testing.T, line []byte) {
		var ev, wev Event
		err := d.Decode(line, &ev)
		// A record not walked (parser.recOdd) decodes as a walked one.
		if werr := walk.Decode(line, &wev); !reflect.DeepEqual(err, werr) || !reflect.DeepEqual(ev, wev) {
			t.Fatalf("not walked: %v %+v\nwalked: %v %+v", err, ev, werr, wev)
		}
		if err != nil {
			if len(err.Problems) == 0 || err.Code == "" {
				t.Fatalf("malformed outcome without code or problem: %+v", err)
			}
			return
		}
		if !IsSafeIdentifier(ev.SessionID) || !IsSafeIdentifier(ev.EventID) || !IsSafeIdentifier(ev.TurnID) {
			t.Fatalf("accepted unsafe identifiers: %+v", ev)
		}
		if ev.Sequence < 0 || ev.Sequence > maxSafeInteger || !isEmittedAt([]byte(ev.EmittedAt)) {
			t.Fatalf("accepted bad envelope: %+v", ev)
		}
		if ev.Kind == KindSnapshot && len(ev.Snapshot.Messages) != ev.Snapshot.MessageCount {
			t.Fatalf("message count %d but %d messages", ev.Snapshot.MessageCount, len(ev.Snapshot.Messages))
		}
	})
}

// addCorpusSeeds seeds a fuzz target with the sample captures and the
// conformance cases.
func addCorpusSeeds(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/*.jsonl")
	more, _ := filepath.Glob("../../../testdata/conformance/cursor/*.jsonl")
	for _, name := range append(files, more...) {
		fh, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.Add(append([]byte(nil), sc.Bytes()...))
		}
		fh.Close()
	}
	fh, err := os.Open("../../../testdata/conformance/decode.jsonl")
	if err != nil {
		return
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c struct{ Line string }
		if json.Unmarshal(sc.Bytes(), &c) == nil && len(c.Line) < 4096 {
			f.Add([]byte(c.Line))
		}
	}
}

// FuzzDecodeBudget fails on any line whose decoding costs more than a
// linear budget of counted steps or holds a tape past its fixed bound, so
// that the fuzzer hunts for the next super-linear path, and checks that
// the prescan way of parsing a message record agrees with the first pass.
func FuzzDecodeBudget(f *testing.F) {
	addCorpusSeeds(f)
	for _, s := range hostileShapes {
		f.Add([]byte(s.line(40)))
	}
	var a, b Decoder
	a.Messages, b.Messages = true, true
	b.p.restartAt = 1
	f.Fuzz(func(t *testing.T, line []byte) {
		var ev Event
		ea := a.Decode(line, &ev)
		if a.p.work > 20*len(line)+64 {
			t.Fatalf("work %d for a %d-byte line", a.p.work, len(line))
		}
		if len(a.p.tape) > recordCap+len(line) || cap(a.p.tape) > 2*(recordCap+1024) {
			t.Fatalf("tape of %d nodes (capacity %d) for a %d-byte line", len(a.p.tape), cap(a.p.tape), len(line))
		}
		eb := b.Decode(line, &ev)
		if b.p.work > 20*len(line)+64 {
			t.Fatalf("prescan: work %d for a %d-byte line", b.p.work, len(line))
		}
		if (ea == nil) != (eb == nil) || (ea != nil && ea.Code != eb.Code) {
			t.Fatalf("first pass %v, prescan %v", ea, eb)
		}
	})
}
