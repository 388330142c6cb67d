package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// realDir holds the real server's captures (testdata/real-server).
var realDir = filepath.Join("..", "..", "testdata", "real-server")

// realBodies reads one real capture as the response body of each turn,
// keyed by session and turn: every line of a turn, as the server wrote
// it, in order.
func realBodies(t testing.TB, name string) (map[[2]string][]byte, [][2]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(realDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bodies := map[[2]string][]byte{}
	var order [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct{ SessionID, TurnID string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		k := [2]string{ev.SessionID, ev.TurnID}
		if _, ok := bodies[k]; !ok {
			order = append(order, k)
		}
		bodies[k] = append(append(bodies[k], sc.Bytes()...), '\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return bodies, order
}

// realErrorBodies are the real server's error bodies by code, byte for
// byte (no trailing newline), as proxied-mix.jsonl holds them one a line.
func realErrorBodies(t testing.TB) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realDir, "proxied-mix.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, l := range bytes.Split(data, []byte("\n")) {
		var b struct{ Error struct{ Code string } }
		if bytes.HasPrefix(l, []byte(`{"error"`)) && json.Unmarshal(l, &b) == nil {
			out[b.Error.Code] = l
		}
	}
	for _, c := range []string{"SESSION_BUSY", "REQUEST_INVALID_JSON", "REQUEST_INVALID_EVENT", "REQUEST_UNSUPPORTED_MEDIA_TYPE"} {
		if out[c] == nil {
			t.Fatalf("proxied-mix.jsonl has no %s body", c)
		}
	}
	return out
}

// upstream is a test chat server that answers as the real one did: a
// submit gets its turn's body from a real capture, written in chunks of
// random length (cutting lines) with small delays and flushed after each;
// a second submit on a session while a turn streams gets 409 and the
// real SESSION_BUSY body; a body that is not JSON, not a submit, or not
// sent as application/json gets the real 400 or 415 body.
type upstream struct {
	bodies map[[2]string][]byte
	errs   map[string][]byte
	delay  time.Duration
	// hold, for a turn, is how many of its lines are written before the
	// response waits for the client to go away (an abort).
	hold map[[2]string]int

	mu      sync.Mutex
	busy    map[string]bool
	written map[string][]byte // by submit event id: every byte written
	headers []http.Header     // the requests' headers, as they arrived
	gone    int               // responses whose client went away
	rnd     *rand.Rand
}

func newUpstream(t testing.TB, bodies map[[2]string][]byte) *upstream {
	return &upstream{bodies: bodies, errs: realErrorBodies(t), delay: 200 * time.Microsecond,
		hold: map[[2]string]int{}, busy: map[string]bool{}, written: map[string][]byte{}, rnd: rand.New(rand.NewPCG(1, 2))}
}

func (u *upstream) refuse(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(u.errs[code])
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.headers = append(u.headers, r.Header.Clone())
	u.mu.Unlock()
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		u.refuse(w, http.StatusUnsupportedMediaType, "REQUEST_UNSUPPORTED_MEDIA_TYPE")
		return
	}
	data, _ := io.ReadAll(r.Body)
	var sub struct {
		Event, EventID, SessionID, TurnID string
	}
	if json.Unmarshal(data, &sub) != nil {
		u.refuse(w, http.StatusBadRequest, "REQUEST_INVALID_JSON")
		return
	}
	k := [2]string{sub.SessionID, sub.TurnID}
	body, ok := u.bodies[k]
	if sub.Event != "client.turn.submit" || !ok {
		u.refuse(w, http.StatusBadRequest, "REQUEST_INVALID_EVENT")
		return
	}
	u.mu.Lock()
	if u.busy[sub.SessionID] {
		u.mu.Unlock()
		u.refuse(w, http.StatusConflict, "SESSION_BUSY")
		return
	}
	u.busy[sub.SessionID] = true
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		u.busy[sub.SessionID] = false
		u.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.Header().Set("Set-Cookie", "srv=secret-set-cookie-99")
	w.WriteHeader(http.StatusOK)
	if n, ok := u.hold[k]; ok {
		body = body[:nthLineEnd(body, n)]
	}
	fl := w.(http.Flusher)
	for len(body) > 0 {
		u.mu.Lock()
		n := min(len(body), 1+u.rnd.IntN(3000))
		u.mu.Unlock()
		if _, err := w.Write(body[:n]); err != nil {
			return
		}
		fl.Flush()
		u.mu.Lock()
		u.written[sub.EventID] = append(u.written[sub.EventID], body[:n]...)
		u.mu.Unlock()
		body = body[n:]
		select {
		case <-r.Context().Done():
			u.wentAway()
			return
		case <-time.After(u.delay):
		}
	}
	if _, ok := u.hold[k]; ok {
		<-r.Context().Done()
		u.wentAway()
	}
}

func (u *upstream) wentAway() {
	u.mu.Lock()
	u.gone++
	u.mu.Unlock()
}

// sent returns what the upstream wrote in answer to a submit.
func (u *upstream) sent(eventID string) []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.written[eventID]
}

// nthLineEnd is the offset just past the n-th newline of b.
func nthLineEnd(b []byte, n int) int {
	off := 0
	for range n {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return len(b)
		}
		off += i + 1
	}
	return off
}

// submit is a client.turn.submit event of the given ids.
func submit(session, turn, id string) string {
	return `{"protocol":"agentskit.chat.turn","version":1,"eventId":"` + id + `","sessionId":"` + session +
		`","turnId":"` + turn + `","sequence":0,"emittedAt":"2026-12-01T08:45:53.600Z","event":"client.turn.submit","payload":{"input":"question for ` + turn + `"}}`
}

// post sends a request with the secret headers a browser would send.
func post(t testing.TB, client *http.Client, url, contentType, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer secret-token-4711")
	req.Header.Set("Cookie", "sid=secret-cookie-0815")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
