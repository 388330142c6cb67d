package wire

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// unwrap takes the event out of a line of a wrapped capture, where each
// line is a JSON document holding the event at path (a gjson path), either
// as an object or as a string of JSON, as WebSocket and SSE logs store it.
// The wrapper's syntax is checked first with the decoder's own iterative
// scanner: gjson alone would accept broken JSON, and its validator
// recurses, which a line of a million brackets turns into a crash.
func (d *Decoder) unwrap(line []byte, path string) ([]byte, *DecodeError) {
	d.p.data = line
	i := d.p.ws(0)
	end, err := 0, (*syntaxError)(nil)
	if i >= len(line) {
		err = d.p.fail(i, "unexpected end of input")
	} else if end, err = d.p.skipValue(i); err == nil {
		if j := d.p.ws(end); j < len(line) {
			err = d.p.fail(j, "unexpected data after the JSON value")
		}
	}
	if err != nil {
		return nil, d.syntax(err, true)
	}
	r := gjson.GetBytes(line, path)
	switch {
	case !r.Exists():
		msg := fmt.Sprintf("wrapper has no value at --event-path %q", path) // the path is the operator's
		return nil, &DecodeError{Code: CodeInvalidPayload, Offset: -1,
			Problems: []Problem{{Message: msg, RedactedMessage: msg}}}
	case r.Type == gjson.String:
		d.unwrapped = append(d.unwrapped[:0], r.Str...)
	default:
		d.unwrapped = append(d.unwrapped[:0], r.Raw...)
	}
	return d.unwrapped, nil
}
