package replay

import (
	"strings"
	"testing"
)

func TestSnifferHint(t *testing.T) {
	event := snapshotLine("s", 1)
	tests := []struct {
		name   string
		lines  []string
		format string // "" for no hint
		path   string
	}{
		{"clean", []string{event, event}, "", ""},
		{"a few bad lines", []string{event, event, "junk"}, "", ""},
		{"wrapped object", []string{`{"ts":1,"frame":` + event + `}`, `{"ts":2,"frame":` + event + `}`}, "wrapped JSON", "frame"},
		{"wrapped under an odd key", []string{`{"ts":1,"ws.msg":` + event + `}`}, "wrapped JSON", `ws\.msg`},
		{"wrapped, no event inside", []string{`{"ts":1,"frame":{}}`}, "wrapped JSON", ""},
		{"sse", []string{"event: snapshot", "data: " + event}, "Server-Sent Events", ""},
		{"har", []string{"{", `  "log": {`, `    "entries": []`, "  }", "}"}, "a HAR file", ""},
		{"record capture", []string{`{"snapctl":"capture","at":"x"}`, `{"snapctl":"received","req":1,"lines":1}`, event, `{"snapctl":"end","req":1}`}, "snapctl record's context records", ""},
		{"cri log", []string{"2026-07-11T03:00:00.000Z stdout F " + event}, "container log lines", ""},
		{"compose log", []string{"api-1  | " + event}, "container log lines", ""},
		{"invalid events", []string{strings.Replace(event, `"sequence":1`, `"sequence":"1"`, 1)}, "protocol events that break its rules", ""},
		{"invalid events, a junk line among them", []string{strings.Replace(event, `"sequence":1`, `"sequence":"1"`, 1), strings.Replace(event, `"version":1,`, ``, 1), "SECRETX"}, "protocol events that break its rules", ""},
		{"junk, an invalid event among it", []string{strings.Replace(event, `"sequence":1`, `"sequence":"1"`, 1), "junk", "more junk"}, "JSON and text, not events", ""},
		{"text", []string{"hello", "world"}, "text, not JSON", ""},
		{"a program", []string{"\x7fELF\x02\x01\x01\x00\x00", "text"}, "binary data, not text", ""},
		{"not UTF-8", []string{"GIF89a\xff\xfe"}, "binary data, not text", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd, err := Open([]string{StdinName}, strings.NewReader(strings.Join(tt.lines, "\n")+"\n"), 0)
			if err != nil {
				t.Fatal(err)
			}
			rd.SetFormat(FormatNDJSON) // what the hints are for: other formats read as lines
			var s Sniffer
			if _, err := Run(rd, Options{RawMalformed: true}, func(res *Result) error { s.Observe(res); return nil }); err != nil {
				t.Fatal(err)
			}
			h := s.Hint("")
			switch {
			case tt.format == "" && h != nil:
				t.Errorf("hint %+v, want none", h)
			case tt.format != "" && h == nil:
				t.Errorf("no hint, want %s", tt.format)
			case h != nil && (h.Format != tt.format || h.EventPath != tt.path):
				t.Errorf("hint %q %q, want %q %q", h.Format, h.EventPath, tt.format, tt.path)
			}
		})
	}
}
