package cmd

import (
	"strconv"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// namesListed is how many existing names an unknown-name error lists: a
// handful to copy from, and a count for the rest.
const namesListed = 5

// nameSet collects names in order of first appearance, to say what exists
// when a flag names nothing.
type nameSet struct {
	seen  map[string]bool
	order []string
}

func (s *nameSet) add(name string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[name] {
		s.seen[name] = true
		s.order = append(s.order, name)
	}
}

func (s *nameSet) has(name string) bool { return s.seen[name] }

// unknownName is the error for a flag value that names nothing in the
// capture: one line naming the value and listing what exists, so that
// a typo is seen at once and never read as "nothing happened".
func unknownName(flag, value, kind string, names []string) error {
	if len(names) == 0 {
		return usageErrorf("%s %s matches nothing: the capture has no %ss", flag, value, kind)
	}
	list := make([]string, 0, namesListed)
	for _, n := range names[:min(len(names), namesListed)] {
		list = append(list, termsafe.String(n))
	}
	more := ""
	if n := len(names) - len(list); n > 0 {
		more = " (+" + strconv.Itoa(n) + ")"
	}
	return usageErrorf("%s %s matches nothing: the capture has %s: %s%s", flag, value, text.Plural(len(names), kind), strings.Join(list, ", "), more)
}

// checkSession fails when a pinned --session is not the session of any
// event, listing the sessions there are.
func (c *captureFlags) checkSession(ids []string) error {
	if c.Session == "" {
		return nil
	}
	for _, id := range ids {
		if id == c.Session {
			return nil
		}
	}
	return unknownName("--session", c.Session, "session", ids)
}

// sessionIDs are the ids of a run's sessions, in order of appearance.
func sessionIDs(sessions []*replay.SessionStats) []string {
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.SessionID
	}
	return ids
}
