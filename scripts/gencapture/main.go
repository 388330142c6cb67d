// Command gencapture writes a realistic synthetic capture for benchmarks:
// several sessions of streaming turns whose complete snapshots grow with
// the conversation, with a few percent of duplicate, stale, truncated and
// foreign lines, as reconnects and proxies leave them.
//
//	go run ./scripts/gencapture -size 300MB -o bench/capture.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

type message struct {
	ID        string         `json:"id"`
	Role      string         `json:"role"`
	Content   string         `json:"content"`
	Status    string         `json:"status"`
	CreatedAt string         `json:"createdAt"`
	ToolCalls []toolCall     `json:"toolCalls,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type toolCall struct {
	ID     string         `json:"id"`
	Name   string         `json:"name"`
	Args   map[string]any `json:"args"`
	Status string         `json:"status"`
	Result string         `json:"result,omitempty"`
}

type session struct {
	id       string
	seq      int64
	turn     int
	history  []message
	recent   []string // recent lines, for redelivery
	at       time.Time
	maxTurns int
}

var words = strings.Fields(`the cursor accepts only a greater sequence so a reconnect
cannot roll back what the user already saw while stale and duplicate deliveries stay
inert operators compare captures line by line to find which snapshot was dropped and
why the projection changed between two accepted states of one conversation`)

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func main() {
	size := flag.String("size", "300MB", "approximate capture size (e.g. 30MB, 300MB, 1GB)")
	out := flag.String("o", "", "output file (default standard output)")
	sessions := flag.Int("sessions", 8, "number of interleaved sessions")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	limit, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencapture:", err)
		os.Exit(2)
	}
	f := os.Stdout
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			fmt.Fprintln(os.Stderr, "gencapture:", err)
			os.Exit(2)
		}
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(*seed, 7))
	var ss []*session
	start := time.Date(2026, 7, 11, 3, 0, 0, 0, time.UTC)
	newSession := func(i int) *session {
		return &session{id: fmt.Sprintf("session-%04d-%d", i, r.IntN(1e6)), at: start, maxTurns: 12 + r.IntN(16)}
	}
	for i := 0; i < *sessions; i++ {
		ss = append(ss, newSession(i))
	}
	var written int64
	emit := func(s *session, line string) {
		written += int64(len(line)) + 1
		w.WriteString(line)
		w.WriteByte('\n')
		s.recent = append(s.recent, line)
		if len(s.recent) > 8 {
			s.recent = s.recent[1:]
		}
	}
	next := 0
	for written < limit {
		i := r.IntN(len(ss))
		s := ss[i]
		if s.turn >= s.maxTurns {
			next++
			ss[i] = newSession(len(ss) + next)
			continue
		}
		turnLines(r, s, emit, w, &written)
	}
	w.Flush()
	if *out != "" {
		f.Close()
	}
}

// turnLines writes one turn: a submit, then streaming snapshots that grow
// until the reply completes, with the occasional transport accident.
func turnLines(r *rand.Rand, s *session, emit func(*session, string), w *bufio.Writer, written *int64) {
	s.turn++
	turnID := fmt.Sprintf("turn-%d", s.turn)
	input := sentence(r, 8+r.IntN(20))
	s.at = s.at.Add(time.Duration(1+r.IntN(30)) * time.Second)
	s.seq++
	emit(s, envelope(s, turnID, "client.turn.submit", map[string]any{"input": input}))
	user := message{ID: fmt.Sprintf("msg-%d-user", s.turn), Role: "user", Content: input, Status: "complete", CreatedAt: ts(s.at)}
	s.history = append(s.history, user)
	reply := sentence(r, 150+r.IntN(250))
	steps := 6 + r.IntN(8)
	var lineage map[string]any
	if s.turn > 1 && r.IntN(5) == 0 {
		ops := []string{"retry", "edit", "regenerate"}
		lineage = map[string]any{"operation": ops[r.IntN(3)], "parentTurnId": fmt.Sprintf("turn-%d", s.turn-1),
			"sourceMessageId": fmt.Sprintf("msg-%d-user", s.turn-1)}
	} else {
		lineage = map[string]any{"operation": "submit"}
	}
	for k := 1; k <= steps; k++ {
		status := "streaming"
		if k == steps {
			status = "complete"
		}
		content := reply[:len(reply)*k/steps]
		a := message{ID: fmt.Sprintf("msg-%d-assistant", s.turn), Role: "assistant", Content: content, Status: status, CreatedAt: ts(s.at)}
		if k == steps && r.IntN(3) == 0 {
			a.ToolCalls = []toolCall{{ID: "call-" + strconv.Itoa(s.turn), Name: "search", Args: map[string]any{"query": input[:min(20, len(input))], "limit": 5}, Status: "complete", Result: sentence(r, 12)}}
			a.Metadata = map[string]any{"model": "m-large", "latencyMs": r.IntN(3000)}
		}
		msgs := append(append([]message(nil), s.history...), a)
		s.at = s.at.Add(time.Duration(50+r.IntN(400)) * time.Millisecond)
		s.seq += 1 + int64(r.IntN(2)) // occasional coalescing gap
		payload := map[string]any{"status": status, "lineage": lineage, "messages": msgs,
			"usage": map[string]any{"promptTokens": 40 * s.turn, "completionTokens": len(content) / 4, "totalTokens": 40*s.turn + len(content)/4}}
		line := envelope(s, turnID, "server.turn.snapshot", payload)
		emit(s, line)
		switch x := r.IntN(100); {
		case x < 2 && len(s.recent) > 3: // reconnect: replay a few older lines (stale), then the last (duplicate)
			for _, old := range s.recent[len(s.recent)-3:] {
				*written += int64(len(old)) + 1
				w.WriteString(old)
				w.WriteByte('\n')
			}
		case x < 3: // a line cut off mid-write
			cut := line[:r.IntN(len(line))]
			*written += int64(len(cut)) + 1
			w.WriteString(cut)
			w.WriteByte('\n')
		case x < 4: // a line of another session the proxy mixed in
			other := strings.Replace(line, `"sessionId":"`+s.id, `"sessionId":"foreign-`+s.id, 1)
			*written += int64(len(other)) + 1
			w.WriteString(other)
			w.WriteByte('\n')
		}
		if k == steps {
			s.history = append(s.history, a)
		}
	}
}

func envelope(s *session, turnID, kind string, payload any) string {
	b, err := json.Marshal(map[string]any{
		"protocol": "agentskit.chat.turn", "version": 1, "eventId": fmt.Sprintf("evt-%s-%d", s.id, s.seq),
		"sessionId": s.id, "turnId": turnID, "sequence": s.seq, "emittedAt": ts(s.at), "event": kind, "payload": payload,
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	u := strings.ToUpper(s)
	for _, suf := range []struct {
		s string
		m int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(u, suf.s) {
			mult, u = suf.m, strings.TrimSuffix(u, suf.s)
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad -size %q", s)
	}
	return n * mult, nil
}
