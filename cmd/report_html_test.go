package cmd

import (
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Tests of what the report's page shows, on its parsed HTML.

// parsePage parses a page that checkPage accepted.
func parsePage(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// elements are the elements under n that match, in document order.
func elements(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
		out = append(out, elements(c, match)...)
	}
	return out
}

// tag matches the elements of a name.
func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

// hasClass matches the elements of a class.
func hasClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return slicesContains(strings.Fields(nodeAttr(n, "class")), class) }
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// nodeAttr is the value of n's attribute key, "" when it has none.
func nodeAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestReportHAREntries checks that a HAR's positions name their entry,
// in the findings and the tables, and that every row has an id of its
// own although each entry's lines count from 1.
func TestReportHAREntries(t *testing.T) {
	doc := parsePage(t, runReport(t, []string{"../testdata/real-server/proxied.har"}, nil))
	entry := regexp.MustCompile(`^proxied\.har:entry [0-9]+:line [0-9]+$`)
	links := elements(doc, func(n *html.Node) bool { return n.Parent != nil && hasClass("pos")(n.Parent) })
	if len(links) == 0 {
		t.Fatal("no finding lists a position")
	}
	for _, a := range links {
		if !entry.MatchString(textOf(a)) {
			t.Errorf("finding position %q does not name its entry", textOf(a))
		}
	}
	ids := map[string]bool{}
	rows := elements(doc, func(n *html.Node) bool { return n.Data == "tr" && nodeAttr(n, "id") != "" })
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, tr := range rows {
		id := nodeAttr(tr, "id")
		if ids[id] {
			t.Errorf("two rows have id %q", id)
		}
		ids[id] = true
		if pos := textOf(elements(tr, tag("td"))[0]); !entry.MatchString(pos) {
			t.Errorf("row %s: position %q does not name its entry", id, pos)
		}
	}
}
