package wire

import (
	"fmt"
	"strconv"
	"strings"
)

// excerpt is text quoted from the line in a problem message. The checker
// formats a problem twice: with the excerpts, and with a placeholder for
// every excerpt that holds a value from the line, for --redact.
type excerpt struct {
	text string
	// value is set when text came from the line, not from snapctl (the
	// JSON type of a container is snapctl's word).
	value bool
}

func (e excerpt) String() string { return e.text }

// hiddenValue stands for a value of the line in a redacted message.
const hiddenValue = "(value hidden)"

// hiddenKey stands for an object key of the line in a redacted path.
const hiddenKey = "*"

// redactedArgs returns args with every value excerpt replaced by
// hiddenValue, and whether there was one.
func redactedArgs(args []any) ([]any, bool) {
	var out []any
	for i, a := range args {
		if e, ok := a.(excerpt); ok && e.value {
			if out == nil {
				out = append([]any(nil), args...)
			}
			out[i] = hiddenValue
		}
	}
	return out, out != nil
}

// protocolKeys are the object keys the protocol names. Any other key of a
// line (a metadata key, a tool argument, an unknown extra field) is data,
// and a redacted path shows it as hiddenKey.
var protocolKeys = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`protocol version eventId sessionId turnId sequence emittedAt
		event payload input status usage promptTokens completionTokens totalTokens messages error
		lineage operation parentTurnId sourceMessageId code message retryable id role content
		createdAt toolCallId parts type text source mimeType detail durationSec filename toolCalls
		name args result metadata`) {
		protocolKeys[k] = true
	}
}

// IsProtocolKey reports whether k is an object key the protocol names:
// such a key says nothing about the conversation, so --redact shows it.
func IsProtocolKey(k string) bool { return protocolKeys[k] }

// freeForm names the members whose whole content is data: below them no
// key is the protocol's, whatever its name.
func freeForm(k string) bool { return k == "metadata" || k == "args" }

// redactedPathString is pathString with every key that is not the
// protocol's, and every key below metadata or args, shown as hiddenKey.
func (c *checker) redactedPathString() string {
	var b strings.Builder
	hidden := false
	for _, s := range c.path {
		if s.key == "" {
			fmt.Fprintf(&b, "[%d]", s.idx)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if hidden || !IsProtocolKey(s.key) {
			b.WriteString(hiddenKey)
			continue
		}
		b.WriteString(s.key)
		hidden = freeForm(s.key)
	}
	return b.String()
}

// redactedSyntax is a JSON syntax error without the character it quotes.
func redactedSyntax(e *syntaxError) string {
	return "invalid JSON at byte " + strconv.Itoa(e.off)
}
