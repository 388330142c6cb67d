package render

import (
	"strings"

	"github.com/agentskit/snapctl/inspect"
)

// helpWidth is the width of help text: topics fit 80 columns.
const helpWidth = 79

// findingDoc is a finding's documentation as `snapctl help findings` and
// `snapctl explain ID` print it, from the one source, inspect.Checks:
// what it means, how it arises and what to do, each a paragraph wrapped
// at helpWidth with the given indent.
func findingDoc(c inspect.Check, indent string) string {
	var b strings.Builder
	for _, p := range findingParagraphs(c) {
		wrapWords(&b, p, indent, helpWidth)
	}
	return b.String()
}

// findingParagraphs are what a finding means, how it arises and what to
// do.
func findingParagraphs(c inspect.Check) []string {
	return []string{c.Means, "How it arises: " + c.Arises, "What to do: " + c.Do}
}

// FindingsReference is the part of the findings topic generated from
// inspect.Checks: every check, its severity and its documentation.
func FindingsReference() string {
	var b strings.Builder
	for _, c := range inspect.Checks {
		b.WriteString("  " + c.ID + " (" + string(c.Severity) + ")\n")
		b.WriteString(findingDoc(c, "      "))
	}
	return b.String()
}

// wrapWords writes text in lines of at most width bytes, each starting
// with indent; a word longer than that stays whole. Help text is ASCII,
// so bytes are columns.
func wrapWords(b *strings.Builder, text, indent string, width int) {
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}
