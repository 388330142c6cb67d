package model_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/replay"
)

// unexplained runs diff over a capture and returns the lines of the
// pairs with a removal no lineage explains, and how many such removals
// there are.
func unexplained(t *testing.T, name string, data []byte) ([]string, int) {
	t.Helper()
	rd := open(t, name, data)
	defer rd.Close()
	lines := map[string]bool{}
	n := 0
	d := diff.NewDiffer(diff.Options{NoWords: true}, func(p *diff.PairDiff) error {
		for _, r := range p.Removed {
			if !r.Explained {
				n++
				lines[fmt.Sprintf("%s:%d", p.From.File, p.From.Line)] = true
				lines[fmt.Sprintf("%s:%d", p.To.File, p.To.Line)] = true
			}
		}
		return nil
	})
	if _, err := replay.Run(rd, replay.Options{Messages: true}, d.Add); err != nil {
		t.Fatal(err)
	}
	return sorted(lines), n
}

// vanished runs inspect over a capture and returns the positions of its
// message-vanished findings, and how many messages they count.
func vanished(t *testing.T, name string, data []byte) ([]string, int) {
	t.Helper()
	rd := open(t, name, data)
	defer rd.Close()
	rep, err := inspect.Run(rd, inspect.Options{MaxPositions: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	n := 0
	for _, f := range rep.Findings {
		if f.ID != inspect.MessageVanished {
			continue
		}
		var k int
		if _, err := fmt.Sscanf(f.Message, "%d ", &k); err != nil {
			t.Fatalf("finding message %q: %v", f.Message, err)
		}
		n += k
		for _, p := range f.Positions {
			lines[fmt.Sprintf("%s:%d", p.File, p.Line)] = true
		}
	}
	return sorted(lines), n
}

// open reads the file name, or data when it is not nil.
func open(t *testing.T, name string, data []byte) *replay.Reader {
	t.Helper()
	names, in := []string{name}, io.Reader(nil)
	if data != nil {
		names, in = []string{replay.StdinName}, bytes.NewReader(data)
	}
	rd, err := replay.Open(names, in, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// agree checks that diff's unexplained removals and inspect's vanished
// messages are the same, line for line and in number.
func agree(t *testing.T, name string, data []byte) {
	t.Helper()
	dl, dn := unexplained(t, name, data)
	il, in := vanished(t, name, data)
	if !slices.Equal(dl, il) || dn != in {
		t.Errorf("diff: %d unexplained removals at %v\ninspect: %d vanished messages at %v", dn, dl, in, il)
	}
}

// TestDiffAndInspectAgree checks, on every sample capture and on
// generated captures full of edits, regenerates and repeated ids, that
// the removals diff calls unexplained are the message-vanished findings of
// inspect: one rule, model.Removals, decides both.
func TestDiffAndInspectAgree(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../testdata/*.jsonl", "../../testdata/inspect/*.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found only %d sample captures", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			agree(t, f, nil)
		})
	}
	for seed := uint64(1); seed <= 50; seed++ {
		t.Run(fmt.Sprintf("generated-%d", seed), func(t *testing.T) {
			data := generated(seed)
			if _, n := unexplained(t, "", data); n == 0 {
				t.Fatal("the generated capture has no unexplained removal to agree on")
			}
			agree(t, "", data)
		})
	}
}

// generated writes a capture of two sessions whose projections grow,
// lose messages, repeat ids, and are rewritten by retries, edits and
// regenerates from messages that may or may not be in the projection
// before, with redelivered (inert) snapshots between.
func generated(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	type session struct {
		msgs []string
		seq  int
	}
	sessions := []*session{{}, {}}
	next := 0
	ops := []string{"retry", "edit", "regenerate"}
	for i := 0; i < 60; i++ {
		si := r.IntN(len(sessions))
		s := sessions[si]
		lineage := `"lineage":{"operation":"submit"},`
		switch k := r.IntN(10); {
		case k < 4 || len(s.msgs) == 0:
			next++
			s.msgs = append(s.msgs, fmt.Sprintf("m%d", next))
		case k < 5:
			j := r.IntN(len(s.msgs))
			s.msgs = append(slices.Clone(s.msgs[:j]), s.msgs[j+1:]...)
		case k < 6:
			s.msgs = append(s.msgs, s.msgs[r.IntN(len(s.msgs))]) // a repeated id
		case k < 7:
			s.msgs = slices.Clone(s.msgs[:r.IntN(len(s.msgs))])
		default:
			src := s.msgs[r.IntN(len(s.msgs))]
			if r.IntN(5) == 0 {
				src = "elsewhere"
			}
			lineage = fmt.Sprintf(`"lineage":{"operation":%q,"parentTurnId":"t%d","sourceMessageId":%q},`, ops[r.IntN(3)], i, src)
			keep := r.IntN(len(s.msgs) + 1)
			s.msgs = slices.Clone(s.msgs[:keep])
			next++
			s.msgs = append(s.msgs, fmt.Sprintf("m%d", next))
		}
		seq := s.seq + 1
		if r.IntN(8) == 0 && s.seq > 0 {
			seq = 1 + r.IntN(s.seq) // a stale or duplicate redelivery, inert
		} else {
			s.seq = seq
		}
		var msgs []string
		for _, id := range s.msgs {
			msgs = append(msgs, fmt.Sprintf(`{"id":%q,"role":"assistant","content":"c","status":"complete","createdAt":"2026-07-11T03:00:00.000Z"}`, id))
		}
		fmt.Fprintf(&b, `{"protocol":"agentskit.chat.turn","version":1,"eventId":"e%d","sessionId":"s%d","turnId":"t%d","sequence":%d,"emittedAt":"2026-07-11T03:00:00Z","event":"server.turn.snapshot","payload":{"status":"complete",%s"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2},"messages":[%s]}}`+"\n",
			i, si, i+1, seq, lineage, strings.Join(msgs, ","))
	}
	return []byte(b.String())
}
