package wire

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// checker walks a parsed line and records the rules it breaks.
type checker struct {
	p        *parser
	all      bool
	messages bool
	// full is messages without Decoder.Brief: every field of a message
	// is kept, not only its id, role, status and content.
	full   bool
	borrow bool // see Decoder.Borrow
	hash   bool
	probs  []Problem
	path   []seg
	root   int // tape index of the messages array
	// backing holds the messages array's bytes when messages are kept;
	// base is its offset in the line.
	backing string
	base    int
	// ids is scratch for Snapshot.IDsHash.
	ids []byte
	// seen is the session and turn id of the decoder's last line
	// (Decoder.seen), which the next lines mostly repeat.
	seen *[2]string
}

// seg is one step of a JSON path: a key, or an index when key is "".
type seg struct {
	key string
	idx int
}

func (c *checker) push(key string)  { c.path = append(c.path, seg{key: key}) }
func (c *checker) pushIdx(i int)    { c.path = append(c.path, seg{idx: i}) }
func (c *checker) pop()             { c.path = c.path[:len(c.path)-1] }
func (c *checker) done() bool       { return len(c.probs) > 0 && (!c.all || len(c.probs) > maxProblems) }
func (c *checker) tape() []node     { return c.p.tape }
func (c *checker) n(i int) *node    { return &c.p.tape[i] }
func (c *checker) raw(i int) []byte { n := c.n(i); return c.p.data[n.start:n.end] }

func (c *checker) pathString() string {
	var b strings.Builder
	for _, s := range c.path {
		if s.key == "" {
			fmt.Fprintf(&b, "[%d]", s.idx)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if isPlainKey(s.key) {
			b.WriteString(s.key)
		} else {
			b.WriteString(strconv.Quote(s.key))
		}
	}
	return b.String()
}

func isPlainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return k != ""
}

// maxProblems bounds the problems listed for one line with AllProblems:
// a hostile line could otherwise break a rule in every one of its values,
// and each problem costs a walk to its path.
const maxProblems = 100

// bad records a problem at the current path, and its redacted form.
func (c *checker) bad(format string, args ...any) {
	if len(c.probs) >= maxProblems {
		if len(c.probs) == maxProblems {
			m := fmt.Sprintf("more problems after the first %d are not listed", maxProblems)
			c.probs = append(c.probs, Problem{Message: m, RedactedMessage: m})
		}
		return
	}
	p := Problem{Path: c.pathString(), Message: fmt.Sprintf(format, args...), RedactedPath: c.redactedPathString()}
	p.RedactedMessage = p.Message
	if hidden, ok := redactedArgs(args); ok {
		p.RedactedMessage = fmt.Sprintf(format, hidden...)
	}
	c.probs = append(c.probs, p)
}

// badAt records a problem at the current path extended by key.
func (c *checker) badAt(key string, format string, args ...any) {
	c.push(key)
	c.bad(format, args...)
	c.pop()
}

// text is the decoded content of string node i. Without escapes it is the
// line's own bytes; otherwise it lives in scratch until the next call.
func (c *checker) text(i int) []byte {
	n := c.n(i)
	return unescaped(c.p.data[n.start:n.end], n.esc, &c.p.scratch2)
}

func (c *checker) str(i int) string { return string(c.text(i)) }

func (c *checker) keyText(i int) []byte {
	n := c.n(i)
	return unescaped(c.p.data[n.keyStart:n.keyEnd], n.keyEsc, &c.p.scratch)
}

// field returns the tape index of the last member of object obj named key,
// or -1: with repeated keys the last occurrence counts, as in JSON.parse.
// That is the only live one: above the message record the parser removes
// the members a later one repeats, and inside it marks them dead.
func (c *checker) field(obj int, key string) int {
	t := c.tape()
	ch := obj + 1
	for k, m := uint32(0), t[obj].n; k < m; k++ {
		// A key without escapes is its bytes: their length first, from
		// the node, then its first byte, before the rest is compared
		// (the envelope's nine keys are of five lengths).
		switch n := &t[ch]; {
		case n.dead:
		case n.keyEsc:
			if string(c.keyText(ch)) == key {
				return ch
			}
		case int(n.keyEnd-n.keyStart) == len(key) && (len(key) == 0 || c.p.data[n.keyStart] == key[0]) && string(c.p.data[n.keyStart:n.keyEnd]) == key:
			return ch
		}
		ch = int(t[ch].next)
	}
	return -1
}

// quote renders a short excerpt of a value for a problem message.
func (c *checker) quote(i int) excerpt {
	n := c.n(i)
	if n.kind == kindString {
		return excerpt{strconv.Quote(clipExcerpt(c.str(i))), true}
	}
	if n.kind == kindObject || n.kind == kindArray || n.kind == kindPoison {
		return excerpt{n.kind.String(), false}
	}
	return excerpt{clipExcerpt(string(c.p.data[n.start:n.end])), true}
}

// clipExcerpt cuts a value longer than 64 bytes to its first 61 or fewer
// and "...": at the start of a character, so that the excerpt shows no
// byte the value does not have (half of a character, quoted as \xe7).
func clipExcerpt(s string) string {
	if len(s) <= 64 {
		return s
	}
	k := 61
	for k > 58 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "..."
}

// require looks up key in obj and checks its JSON type; it reports and
// returns -1 when the member is missing or of another type.
func (c *checker) require(obj int, key string, want kind) int {
	return c.requireAt(c.field(obj, key), key, want)
}

// requireAt is require for a member already looked up (i is -1 when
// absent).
func (c *checker) requireAt(i int, key string, want kind) int {
	if i < 0 {
		c.badAt(key, "is missing")
		return -1
	}
	if k := c.n(i).kind; k != want && !(want == kindTrue && k == kindFalse) {
		c.badAt(key, "must be %s, not %s", want, c.quote(i))
		return -1
	}
	return i
}

// optional is require for a member that may be absent (but not null).
func (c *checker) optional(obj int, key string, want kind) (int, bool) {
	return c.optionalAt(c.field(obj, key), key, want)
}

// optionalAt is optional for a member already looked up.
func (c *checker) optionalAt(i int, key string, want kind) (int, bool) {
	if i < 0 {
		return -1, true
	}
	if k := c.n(i).kind; k != want && !(want == kindTrue && k == kindFalse) {
		c.badAt(key, "must be %s when present, not %s", want, c.quote(i))
		return -1, false
	}
	return i, true
}

func (c *checker) number(i int) float64 { return parseNumber(c.raw(i)) }

// safeInt checks a non-negative safe integer member and returns it.
func (c *checker) safeInt(obj int, key string) int64 {
	i := c.require(obj, key, kindNumber)
	if i < 0 {
		return 0
	}
	f := c.number(i)
	if f < 0 || f > maxSafeInteger || f != math.Trunc(f) {
		c.badAt(key, "%s is not a non-negative safe integer", c.quote(i))
		return 0
	}
	return int64(f)
}

const maxSafeInteger = 1<<53 - 1

func (c *checker) ident(obj int, key string) string { return c.identAs(obj, key, nil) }

// identAs is ident that returns *seen when the id is the same, and keeps
// it there when it is not: a session's lines mostly repeat their session
// and turn ids, which then cost no copy each.
func (c *checker) identAs(obj int, key string, seen *string) string {
	i := c.require(obj, key, kindString)
	if i < 0 {
		return ""
	}
	b := c.text(i)
	if !isSafeIdentifier(b) {
		c.badAt(key, "%s is not a safe identifier", c.quote(i))
		return ""
	}
	if seen == nil {
		return string(b)
	}
	if string(b) != *seen {
		*seen = string(b)
	}
	return *seen
}

// enum checks a string member against a set of values and returns it as
// the set's own string, so that no copy of the line is kept.
func (c *checker) enum(obj int, key string, values ...string) string {
	return c.enumAt(c.field(obj, key), key, values...)
}

// enumAt is enum for a member already looked up.
func (c *checker) enumAt(i int, key string, values ...string) string {
	if i = c.requireAt(i, key, kindString); i < 0 {
		return ""
	}
	b := c.text(i)
	for _, v := range values {
		if string(b) == v {
			return v
		}
	}
	c.badAt(key, "%s is not one of %s", c.quote(i), strings.Join(values, ", "))
	return ""
}
