package render

import (
	"net/url"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
)

// ShownURL is a request URL of a capture (a HAR entry's, an exchange's)
// as a view shows it: as it is, or with redact only where it went, its
// scheme, host and path (ids in a path stay, as ids do everywhere), with
// a query, fragment or userinfo, where tokens travel
// (?access_token=…, https://user:pass@host/), each replaced by its size
// as every hidden value is. A URL that does not parse, or whose parts
// cannot be told apart (an opaque one: mailto:…), is hidden whole.
func ShownURL(raw string, redact bool) string {
	if !redact || raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return hiddenText(len(raw))
	}
	var b []byte
	if u.Scheme != "" {
		b = append(b, u.Scheme...)
		b = append(b, ':')
	}
	// file:///x has an authority, empty, that Parse does not keep.
	authority := u.Host != "" || u.User != nil || u.Scheme != "" && strings.HasPrefix(raw[len(u.Scheme)+1:], "//")
	if authority {
		b = append(b, "//"...)
		if u.User != nil {
			b = append(b, hiddenText(len(u.User.String()))...)
			b = append(b, '@')
		}
		b = append(b, u.Host...)
	}
	b = append(b, u.EscapedPath()...)
	if u.RawQuery != "" {
		b = append(b, '?')
		b = append(b, hiddenText(len(u.RawQuery))...)
	}
	if f := u.EscapedFragment(); f != "" {
		b = append(b, '#')
		b = append(b, hiddenText(len(f))...)
	}
	return string(b)
}

// hiddenText is the placeholder of a hidden text of n bytes, the one
// form every view gives a value --redact hides.
func hiddenText(n int) string { return "(hidden: " + text.Plural(n, "byte") + ")" }
