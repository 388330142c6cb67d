package render

import (
	"strings"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

func TestShownURL(t *testing.T) {
	for _, tt := range []struct{ name, raw, want string }{
		{"plain", "https://chat.example/api/turns", "https://chat.example/api/turns"},
		{"port and ids in the path", "https://chat.example:8443/s/s-7f3a/t/42", "https://chat.example:8443/s/s-7f3a/t/42"},
		{"query", "https://chat.example/api?access_token=abc", "https://chat.example/api?(hidden: 16 bytes)"},
		{"empty query", "https://chat.example/api?", "https://chat.example/api"},
		{"fragment", "https://chat.example/#token=xyz", "https://chat.example/#(hidden: 9 bytes)"},
		{"userinfo", "https://user:pass@chat.example/", "https://(hidden: 9 bytes)@chat.example/"},
		{"user alone", "wss://tok@chat.example/socket", "wss://(hidden: 3 bytes)@chat.example/socket"},
		{"all three", "https://u:p@h/x?q=1#f", "https://(hidden: 3 bytes)@h/x?(hidden: 3 bytes)#(hidden: 1 byte)"},
		{"escaped path", "https://h/a%20b/c", "https://h/a%20b/c"},
		{"relative (a record capture's)", "/api/chat?key=k", "/api/chat?(hidden: 5 bytes)"},
		{"empty authority", "file:///etc/x?y", "file:///etc/x?(hidden: 1 byte)"},
		{"opaque", "mailto:someone@example.com", "(hidden: 26 bytes)"},
		{"does not parse", "https://h/\x01?token=t", "(hidden: 19 bytes)"},
		{"bad host", "https://[::1/x?token=t", "(hidden: 22 bytes)"},
		{"escaped userinfo: its size as written", "https://us%65r:p%40ss@h/p", "https://(hidden: 13 bytes)@h/p"},
		{"@ in the password", "https://u:p@ss@h/p", "https://(hidden: 6 bytes)@h/p"},
		{"IPv6 zone stays escaped", "http://[fe80::1%25eth0]:8080/a?b", "http://[fe80::1%25eth0]:8080/a?(hidden: 1 byte)"},
		{"escaped host stays escaped", "http://h%C2%9b/x", "http://h%C2%9b/x"},
		{"path as written", "http://h/a b?q=1", "http://h/a b?(hidden: 3 bytes)"},
		{"scheme as written", "HTTPS://H/x?t", "HTTPS://H/x?(hidden: 1 byte)"},
		{"escaped fragment: its size as written", "http://h/p#a%7Eb", "http://h/p#(hidden: 5 bytes)"},
		{"no scheme, an authority", "//u@h/p?x", "//(hidden: 1 byte)@h/p?(hidden: 1 byte)"},
		{"empty", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShownURL(tt.raw, true); got != tt.want {
				t.Errorf("ShownURL(%q, true) = %q, want %q", tt.raw, got, tt.want)
			}
			if got := ShownURL(tt.raw, false); got != tt.raw {
				t.Errorf("ShownURL(%q, false) = %q, want it as it is", tt.raw, got)
			}
		})
	}
}

// TestURLMatchesNothingRedacts: the error of a --url that kept nothing
// quotes the capture's URLs as every view shows them, with the query
// hidden under --redact, and a long one cut.
func TestURLMatchesNothingRedacts(t *testing.T) {
	st := replay.Stats{Bytes: 10, Formats: []replay.Format{replay.FormatHAR}, HAREntries: 2,
		URLs: []string{"https://chat.example/api/turns?token=SeCrEt", "https://chat.example/" + strings.Repeat("x", 5000)}}
	plain := URLMatchesNothing("/nope", st, false)
	if !strings.Contains(plain, "token=SeCrEt") {
		t.Errorf("without --redact the URL is whole: %s", plain)
	}
	red := URLMatchesNothing("/nope", st, true)
	if strings.Contains(red, "SeCrEt") || !strings.Contains(red, "https://chat.example/api/turns?(hidden: 12 bytes)") {
		t.Errorf("under --redact: %s", red)
	}
	if len(plain) > 1000 {
		t.Errorf("a 5,000-byte URL is quoted whole: %d bytes of error", len(plain))
	}
}
