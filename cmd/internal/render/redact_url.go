package render

import (
	"net/url"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
)

// ShownURL is a request URL of a capture (a HAR entry's, an exchange's)
// as a view shows it: as it is, or with redact only where it went, its
// scheme, host and path as written (ids in a path stay, as ids do
// everywhere), with a query, fragment or userinfo, where tokens travel
// (?access_token=…, https://user:pass@host/), each replaced by its size
// as written, as every hidden value is. A URL that does not parse, or
// whose parts cannot be told apart (an opaque one: mailto:…), is hidden
// whole.
//
// url.Parse only says that the URL parses and where its scheme ends:
// the parts shown are cut from raw, as url.Parse cuts them, because its
// fields are unescaped or re-escaped (a host's %25 zone, a userinfo's
// %65) and would show another URL and other sizes than the capture's.
func ShownURL(raw string, redact bool) string {
	if !redact || raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return hiddenText(len(raw))
	}
	rest, fragment, _ := strings.Cut(raw, "#")
	rest, query, _ := strings.Cut(rest, "?")
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(rest[:len(u.Scheme)+1])
		rest = rest[len(u.Scheme)+1:]
	}
	if authority, ok := strings.CutPrefix(rest, "//"); ok {
		path := ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, path = authority[:i], authority[i:]
		}
		b.WriteString("//")
		if i := strings.LastIndexByte(authority, '@'); i >= 0 {
			b.WriteString(hiddenText(i))
			b.WriteByte('@')
			authority = authority[i+1:]
		}
		b.WriteString(authority)
		rest = path
	}
	b.WriteString(rest)
	if query != "" {
		b.WriteByte('?')
		b.WriteString(hiddenText(len(query)))
	}
	if fragment != "" {
		b.WriteByte('#')
		b.WriteString(hiddenText(len(fragment)))
	}
	return b.String()
}

// hiddenText is the placeholder of a hidden text of n bytes, the one
// form every view gives a value --redact hides.
func hiddenText(n int) string { return "(hidden: " + text.Plural(n, "byte") + ")" }
