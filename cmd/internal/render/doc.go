// Package render holds the text and JSON views of replay, lineage, diff
// and inspect: replay's streaming table and JSON records, lineage trees
// and graphs (mermaid, dot, JSON), diff pairs as text or JSON, inspect's
// overview, findings and close-ups, and the redaction that every view
// applies before it writes a value from a capture.
//
// Each view takes a small options struct of its own (TableOptions,
// DiffTextOptions, CloseupOptions), never a command's; the commands in
// package cmd fill them from their flags. The facts every view shows come
// from the domain packages (replay, inspect, diff), computed once there;
// render only puts them in words, widths through package text and JSON
// through package jsonout.
package render
