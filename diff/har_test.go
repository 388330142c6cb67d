package diff

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

// harPairs diffs testdata/real-server/proxied.har (mitmproxy's HAR of the
// real server, lines counting within each entry's body) with opts, and
// describes each pair as "session seq@entry:line->seq@entry:line".
func harPairs(t *testing.T, opts Options) ([]string, error) {
	t.Helper()
	rd, err := replay.Open([]string{filepath.Join("..", "testdata", "real-server", "proxied.har")}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var got []string
	d := NewDiffer(opts, func(p *PairDiff) error {
		got = append(got, fmt.Sprintf("%s %d@%d:%d->%d@%d:%d between=%d", p.SessionID, p.From.Sequence, p.From.Entry, p.From.Line,
			p.To.Sequence, p.To.Entry, p.To.Line, p.AcceptedBetween))
		return nil
	})
	if _, err := replay.Run(rd, replay.Options{Session: opts.Session, Messages: true, Hash: true}, d.Add); err != nil {
		t.Fatal(err)
	}
	return got, d.Finish()
}

// TestHARRange: --from and --to name a snapshot of a HAR by its line
// within an entry, and each side's position carries the entry. Line 1
// starts every entry's body, so a side named by line alone takes the
// first body's; one named in another entry finds nothing there.
func TestHARRange(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		want    string
		wantErr string
	}{
		{"across two entries of one session", Options{Range: true, FromLine: 3, FromEntry: 1, ToLine: 1, ToEntry: 3},
			"p-s-alpha 4@1:3->47@3:1 between=40", ""},
		{"by sequences, entries on the positions", Options{Range: true, From: 44, To: 47, Session: "p-s-alpha"},
			"p-s-alpha 44@1:43->47@3:1 between=0", ""},
		{"within one entry", Options{Range: true, FromLine: 2, FromEntry: 6, ToLine: 4, ToEntry: 6},
			"p-s-bravo 58@6:2->60@6:4 between=1", ""},
		{"an entry of another session", Options{Range: true, FromLine: 3, FromEntry: 1, ToLine: 1, ToEntry: 2}, "",
			"no session has accepted snapshots at both entry 1:line 3 and entry 2:line 1"},
		{"a line past the entry", Options{Range: true, FromLine: 3, FromEntry: 1, ToLine: 900, ToEntry: 1}, "",
			"no session has accepted snapshots at both entry 1:line 3 and entry 1:line 900; nearest accepted: line 43 (session p-s-alpha) for entry 1:line 900"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := harPairs(t, tt.opts)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != 1 || got[0] != tt.want {
				t.Errorf("pairs %q (err %v), want %q", got, err, tt.want)
			}
		})
	}
}
