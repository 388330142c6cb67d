package wire

import (
	"reflect"
	"testing"
)

func TestEnvelope(t *testing.T) {
	tests := []struct {
		name string
		line string
		want *Envelope
	}{
		{"not JSON", `{"sessionId":"s"`, nil},
		{"not an object", `["s"]`, nil},
		{"no envelope field", `{"protocol":"agentskit.chat.turn"}`, nil},
		{"bad payload keeps the envelope",
			`{"protocol":"agentskit.chat.turn","version":1,"eventId":"e","sessionId":"s","turnId":"t","sequence":7,"emittedAt":"2026-07-11T03:00:00.000Z","event":"server.turn.snapshot","payload":{}}`,
			&Envelope{EventID: "e", SessionID: "s", TurnID: "t", Event: "server.turn.snapshot", Sequence: 7, HasSequence: true}},
		{"wrong types are left out", `{"sessionId":"s","sequence":"7","turnId":3}`, &Envelope{SessionID: "s"}},
		{"fractional sequence is left out", `{"sessionId":"s","sequence":1.5}`, &Envelope{SessionID: "s"}},
		{"unsafe id kept as written", `{"sessionId":"a b"}`, &Envelope{SessionID: "a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Decoder
			var ev Event
			err := d.Decode([]byte(tt.line), &ev)
			if err == nil {
				t.Fatal("decoded, want an error")
			}
			if !reflect.DeepEqual(err.Envelope, tt.want) {
				t.Errorf("envelope %+v, want %+v", err.Envelope, tt.want)
			}
		})
	}
}
