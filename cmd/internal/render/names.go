package render

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// Names collects names in order of first appearance, each once, to say
// what exists when a flag names nothing (UnknownName): at most namesKept
// of them, whatever a hostile capture holds; Over says that more came.
type Names struct {
	seen map[string]bool
	// Order is the names, in order of first appearance.
	Order []string
	Over  bool
}

// namesKept is the most names a Names keeps.
const namesKept = 1 << 16

// Add adds name, unless it is there or namesKept are.
func (s *Names) Add(name string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	switch {
	case s.seen[name]:
	case len(s.Order) >= namesKept:
		s.Over = true
	default:
		s.seen[name] = true
		s.Order = append(s.Order, name)
	}
}

// Has says whether name was added.
func (s *Names) Has(name string) bool { return s.seen[name] }

// NamesListed is how many existing names an unknown-name error lists: a
// handful to copy from, and a count for the rest.
const NamesListed = 5

// UnknownName is the error message for a flag value that names nothing in
// the capture: one line naming the value and listing what exists, so
// that a typo is seen at once and never read as "nothing happened".
func UnknownName(flag, value, kind string, names []string) string {
	return unknownName(flag, value, kind, &Names{Order: names})
}

func unknownName(flag, value, kind string, names *Names) string {
	if len(names.Order) == 0 {
		return fmt.Sprintf("%s %s matches nothing: the capture has no %ss", flag, value, kind)
	}
	return fmt.Sprintf("%s %s matches nothing: the capture has %s", flag, value, cappedList(names, kind))
}

// URLCells is the most cells an error gives a capture's URL: the ends
// of it around "…".
const URLCells = 120

// URLMatchesNothing is the error, "" when there is none, of a --url
// (filter) that kept no HAR entry with turn events, in the words of a
// flag that names nothing: it lists the URLs there are, or says that no
// capture read was a HAR, where --url applies to nothing. A capture of
// no byte is left to EmptyHint. The URLs are as ShownURL shows them
// (with redact, no token of theirs in the error), each cut to
// URLCells: a capture's URL can be a megabyte long.
func URLMatchesNothing(filter string, st replay.Stats, redact bool) string {
	if filter == "" || st.HARKept > 0 || st.Bytes == 0 {
		return ""
	}
	if !slices.Contains(st.Formats, replay.FormatHAR) {
		formats := make([]string, len(st.Formats))
		for i, f := range st.Formats {
			formats[i] = string(f)
		}
		is := "the capture is"
		if st.Files > 1 {
			is = "the captures are"
		}
		return fmt.Sprintf("--url %s matches nothing: it applies to HAR captures only, and %s %s", filter, is, strings.Join(formats, " and "))
	}
	urls := make([]string, len(st.URLs))
	for i, u := range st.URLs {
		urls[i] = text.Shorten(ShownURL(u, redact), URLCells, text.FitMiddle)
	}
	switch st.HAREntries {
	case 0:
		return fmt.Sprintf("--url %s matches nothing: no HAR entry of the capture carries turn events", filter)
	case 1:
		return fmt.Sprintf("--url %s matches nothing: the capture's one HAR entry with turn events has the URL %s", filter, urls[0])
	}
	return fmt.Sprintf("--url %s matches nothing: the capture's %d HAR entries with turn events have URLs like %s",
		filter, st.HAREntries, strings.Join(urls, ", "))
}

// TargetMatchesNothing is the error of an inspect close-up target that
// matched nothing (x.Matches is 0): the --event-id ID, else the line of
// file (entry, line), saying what there is instead.
func TargetMatchesNothing(file string, entry, line int, eventID string, x inspect.Examination) string {
	in := x.Report.Overview.Input
	if eventID != "" {
		if len(x.EventIDs) == 0 {
			return fmt.Sprintf("--event-id %s matches nothing: no line of the capture is a valid event", eventID)
		}
		ids := x.EventIDs[:min(len(x.EventIDs), NamesListed)]
		return fmt.Sprintf("--event-id %s matches nothing: the capture's %s have ids like %s",
			eventID, text.Plural(x.Report.Overview.Counts.Events, "event"), termsafe.String(strings.Join(ids, ", ")))
	}
	if entry > 0 {
		return fmt.Sprintf("%s matches nothing: the capture has no such line", text.Position(file, entry, line))
	}
	if line <= in.Lines {
		return fmt.Sprintf("%s:%d is blank: not an event", file, line)
	}
	return fmt.Sprintf("%s has %s, no line %d", file, text.Plural(in.Lines, "line"), line)
}

// CaptureError is the message of a capture's error under --each,
// beginning with the capture's name, as the error of one that cannot be
// read does: "the capture has 1 session" says nothing of which capture,
// among many.
func CaptureError(file string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, file+":") || strings.HasPrefix(msg, file+" ") {
		return msg
	}
	return file + ": " + msg
}

var boolValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid argument "(.*)" for "(?:-., )?(--[a-z-]+)" flag: strconv.ParseBool`)
})

// UnknownFlag puts pflag's error for a flag the command does not have
// ("unknown flag: --sesion", "unknown shorthand flag: 'x' in -x") with
// what to type instead: of the command's flags (their names), those of the
// nearest names to a long flag, else where its flags are listed. Any other error message
// is returned as it is, but a value a switch (--redact=maybe) does not
// take, which is worded as the switch it is.
func UnknownFlag(msg, cmdPath string, flags []string) string {
	if m := boolValue().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s is on or off: give it alone (or as %s=false), not with %q", m[2], m[2], m[1])
	}
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		if !strings.HasPrefix(msg, "unknown shorthand flag: ") {
			return msg
		}
		name = "" // one letter: no name is near it
	}
	name, _, _ = strings.Cut(name, "=")
	var near []string
	for _, f := range flags {
		if name != "" && (editDistance(name, f) <= max(1, len(name)/3) || (len(name) >= 3 && strings.HasPrefix(f, name))) {
			near = append(near, "--"+f)
		}
	}
	if len(near) > 0 {
		return fmt.Sprintf("%s; did you mean %s? (%s --help lists its flags)", msg, text.OrList(near), cmdPath)
	}
	return fmt.Sprintf("%s (%s --help lists its flags)", msg, cmdPath)
}

// TurnFinder watches a run's results for the turn a --turn names, to say
// truthfully what there is when a view has nothing of it: the turns of
// the pinned session (of the capture, when none is pinned), the other
// sessions that have the turn, whether it has a valid event and an
// accepted snapshot. Its facts are the results' own: the session and turn
// each event (or a malformed line's envelope) names, and its verdict.
type TurnFinder struct {
	turn, session string
	// turns are those of the pinned session, or of the capture.
	turns Names
	// others are the turns of the other sessions (pinned), elsewhere the
	// other sessions that have the turn.
	others, elsewhere Names
	// found, valid and accepted say whether the turn has a result, an
	// event and an accepted snapshot in the pinned session (the capture).
	found, valid, accepted bool
}

// NewTurnFinder watches for turn, session being the pinned session or "".
func NewTurnFinder(turn, session string) *TurnFinder {
	return &TurnFinder{turn: turn, session: session}
}

// SessionTurn are the session and turn a result names: its event's, or
// a malformed line's envelope's (unvalidated), "" for none.
func SessionTurn(res *replay.Result) (session, turn string) {
	switch {
	case res.Event != nil:
		return res.Event.SessionID, res.Event.TurnID
	case res.Err != nil && res.Err.Envelope != nil:
		return res.Err.Envelope.SessionID, res.Err.Envelope.TurnID
	}
	return "", ""
}

// Observe notes one result of the run.
func (f *TurnFinder) Observe(res *replay.Result) {
	session, turn := SessionTurn(res)
	if turn == "" {
		return
	}
	if f.session != "" && session != f.session {
		f.others.Add(turn)
		if turn == f.turn {
			f.elsewhere.Add(session)
		}
		return
	}
	f.turns.Add(turn)
	if turn == f.turn {
		f.found = true
		f.valid = f.valid || res.Event != nil
		f.accepted = f.accepted || res.Verdict() == replay.Accepted
	}
}

// Found says whether the turn has a result of the pinned session (of the
// capture): replay shows it.
func (f *TurnFinder) Found() bool { return f.found || (f.session != "" && len(f.elsewhere.Order) > 0) }

// Accepted says whether an accepted snapshot is of the turn: diff has
// pairs to look at.
func (f *TurnFinder) Accepted() bool { return f.accepted }

// NotDrawn is the error of a lineage --turn that no session has a node
// or an ending of.
func (f *TurnFinder) NotDrawn() string {
	switch {
	case f.found && !f.valid:
		return fmt.Sprintf("--turn %s has only malformed lines %s: nothing to draw", termsafe.String(f.turn), f.where())
	case f.found:
		return fmt.Sprintf("--turn %s has nothing to draw %s", termsafe.String(f.turn), f.where())
	}
	return f.absent()
}

// NotCompared is the error of a diff --turn with no accepted snapshot.
func (f *TurnFinder) NotCompared() string {
	if f.found {
		return fmt.Sprintf("--turn %s has no accepted snapshot %s: nothing to compare", termsafe.String(f.turn), f.where())
	}
	return f.absent()
}

// NotFound is the error of a replay --turn that no result names.
func (f *TurnFinder) NotFound() string {
	return f.absent()
}

// where is where the turn was looked for, after a verb.
func (f *TurnFinder) where() string {
	if f.session == "" {
		return "in the capture"
	}
	return "in session " + termsafe.String(f.session)
}

// absent says that the pinned session (the capture) has no result of
// the turn, what it has, and which other sessions have the turn.
func (f *TurnFinder) absent() string {
	if f.session == "" {
		return unknownName("--turn", f.turn, "turn", &f.turns)
	}
	turn := termsafe.String(f.turn)
	if len(f.elsewhere.Order) > 0 {
		in := "session " + termsafe.String(f.elsewhere.Order[0])
		if len(f.elsewhere.Order) > 1 {
			in = counted(&f.elsewhere, "session") + " (" + listed(&f.elsewhere) + ")"
		}
		return fmt.Sprintf("--turn %s is in %s, not the pinned session %s, which has %s",
			turn, in, termsafe.String(f.session), f.sessionTurns())
	}
	more := 0
	for _, t := range f.others.Order {
		if !f.turns.Has(t) {
			more++
		}
	}
	msg := fmt.Sprintf("--turn %s matches nothing: session %s has %s", turn, termsafe.String(f.session), f.sessionTurns())
	switch {
	case f.others.Over || f.turns.Over:
		msg += "; other sessions have more turns" // past the names kept: how many is not known
	case more > 0:
		msg += "; other sessions have " + text.Plural(more, "more turn")
	}
	return msg
}

// sessionTurns lists the turns of the pinned session.
func (f *TurnFinder) sessionTurns() string {
	if len(f.turns.Order) == 0 {
		return "no turns"
	}
	return cappedList(&f.turns, "turn")
}

// cappedList is "N kinds: a, b (+n)" (listed).
func cappedList(names *Names, kind string) string {
	return counted(names, kind) + ": " + listed(names)
}

// counted is "N kinds", "at least N kinds" when more came than names
// kept (Names.Over).
func counted(names *Names, kind string) string {
	if names.Over {
		return "at least " + text.Plural(len(names.Order), kind)
	}
	return text.Plural(len(names.Order), kind)
}

// listed is "a, b (+n)": the first NamesListed of names, terminal-safe,
// and a count for the rest ("+n and more" past the names kept).
func listed(names *Names) string {
	list := make([]string, 0, NamesListed)
	for _, n := range names.Order[:min(len(names.Order), NamesListed)] {
		list = append(list, termsafe.String(n))
	}
	more := ""
	if n := len(names.Order) - len(list); n > 0 || names.Over {
		more = " (+" + strconv.Itoa(n) + ")"
		if names.Over {
			more = " (+" + strconv.Itoa(n) + " and more)"
		}
	}
	return strings.Join(list, ", ") + more
}
