package jsonout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/itchyny/gojq"
)

// QueryError is a --jq expression that is wrong, or that failed on the
// output: bad usage.
type QueryError struct{ Err error }

// Error says what was wrong with the expression.
func (e *QueryError) Error() string { return "--jq: " + e.Err.Error() }

// Unwrap returns gojq's own error.
func (e *QueryError) Unwrap() error { return e.Err }

// CompileJQ compiles a --jq expression; a bad one is a QueryError.
func CompileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, &QueryError{err}
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, &QueryError{err}
	}
	return code, nil
}

// JQWriter runs a --jq expression on the JSON a command writes, between
// the one JSON encoder and standard output. With lines (-o jsonl) it runs
// on each record as its line is written, so a live stream stays live;
// otherwise (-o json) it collects the document, which is written as it
// goes, and runs once on the whole at close. Results that are strings
// are written raw, as gh and jq -r do (made terminal-safe on a terminal);
// others as JSON in the output's layout, through the one encoder.
type JQWriter struct {
	out   io.Writer
	code  *gojq.Code
	lines bool
	tty   bool
	buf   []byte
	err   error
}

// NewJQWriter returns a JQWriter of code that writes to out: with lines
// record by record, with tty made safe for a terminal.
func NewJQWriter(out io.Writer, code *gojq.Code, lines, tty bool) *JQWriter {
	return &JQWriter{out: out, code: code, lines: lines, tty: tty}
}

// Write takes the next part of the output; with lines it runs the
// expression on each record it completes.
func (j *JQWriter) Write(p []byte) (int, error) {
	if j.err != nil {
		return 0, j.err
	}
	j.buf = append(j.buf, p...)
	if !j.lines {
		return len(p), nil
	}
	for {
		i := bytes.IndexByte(j.buf, '\n')
		if i < 0 {
			break
		}
		line := j.buf[:i]
		if len(bytes.TrimSpace(line)) > 0 {
			if err := j.run(line); err != nil {
				j.err = err
				return 0, err
			}
		}
		j.buf = j.buf[i+1:]
	}
	return len(p), nil
}

// Close runs the expression on the collected document (-o json), or on a
// last record without its newline.
func (j *JQWriter) Close() error {
	if j.err != nil || len(bytes.TrimSpace(j.buf)) == 0 {
		return j.err
	}
	err := j.run(j.buf)
	j.buf = nil
	return err
}

// run runs the expression on each JSON value of doc: one, or with --each
// one document per capture.
func (j *JQWriter) run(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("--jq: reading the output: %w", err)
		}
		if err := j.runOn(v); err != nil {
			return err
		}
	}
}

func (j *JQWriter) runOn(v any) error {
	style := Document
	if j.lines {
		style = Lines
	}
	e := NewEncoder(j.out, style)
	iter := j.code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := r.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return &QueryError{err}
		}
		if s, ok := r.(string); ok {
			if j.tty {
				s = termsafe.String(s)
			}
			if _, err := io.WriteString(j.out, s+"\n"); err != nil {
				return err
			}
			continue
		}
		if err := e.Value(r); err != nil {
			return fmt.Errorf("--jq: %w", err)
		}
		if err := e.End(); err != nil {
			return err
		}
	}
}
