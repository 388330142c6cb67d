package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// failOnPositions is how many positions a --fail-on report lists per
// match: enough to open the first few lines, short enough for a CI log.
const failOnPositions = 10

// ErrMatched makes the process exit 1: a --fail-on condition held. The
// commands return it wrapped in a FailOnMatch, which says what matched.
var ErrMatched = errors.New("fail-on matched")

// FailOnMatch is a --fail-on condition that held, with what matched, so
// that standard error says why the command exits 1: a CI log must never
// show a failure without its cause.
type FailOnMatch struct {
	items []*matchedItem
}

// matchedItem is one reason or finding that matched: how many, and the
// first positions.
type matchedItem struct {
	what      string
	unit      string
	positions []inspect.Position
	total     int
}

func (m *FailOnMatch) Error() string { return strings.Join(m.Lines(), "\n") }

// Unwrap makes a match exit 1, like ErrMatched.
func (m *FailOnMatch) Unwrap() error { return ErrMatched }

// Lines are what matched, one line each for standard error.
func (m *FailOnMatch) Lines() []string {
	lines := make([]string, len(m.items))
	for i, it := range m.items {
		lines[i] = it.String()
	}
	return lines
}

func (it *matchedItem) String() string {
	s := fmt.Sprintf("--fail-on matched %s: %s", it.what, text.Plural(it.total, it.unit))
	if len(it.positions) > 0 {
		s += " at " + CompactPositions(it.positions, it.total, 0)
	}
	return s
}

// at counts one matching line.
func (it *matchedItem) at(res *replay.Result) {
	it.total++
	if len(it.positions) < failOnPositions {
		it.positions = append(it.positions, inspect.Position{File: res.File, Line: res.Line, Entry: model.EntryOf(res)})
	}
}

// ReasonMatches tallies the events whose reason is in a --fail-on list.
type ReasonMatches struct {
	want  []replay.Reason
	items map[replay.Reason]*matchedItem
}

// NewReasonMatches tallies the events of the reasons want.
func NewReasonMatches(want []replay.Reason) *ReasonMatches {
	return &ReasonMatches{want: want, items: map[replay.Reason]*matchedItem{}}
}

// Observe counts res when its reason is wanted.
func (m *ReasonMatches) Observe(res *replay.Result) {
	for _, r := range m.want {
		if res.Reason != r {
			continue
		}
		it := m.items[r]
		if it == nil {
			it = &matchedItem{what: string(r), unit: "event"}
			m.items[r] = it
		}
		it.at(res)
	}
}

// Err is the match, in replay's order of reasons, or nil.
func (m *ReasonMatches) Err() error {
	var fm FailOnMatch
	for _, r := range replay.Reasons {
		if it := m.items[r]; it != nil {
			fm.items = append(fm.items, it)
		}
	}
	if len(fm.items) == 0 {
		return nil
	}
	return &fm
}

// FindingMatch is the match of findings at or above a severity.
func FindingMatch(fs []inspect.Finding, keep func(inspect.Finding) bool) error {
	var fm FailOnMatch
	for _, f := range fs {
		if !keep(f) {
			continue
		}
		what := fmt.Sprintf("%s %s", f.Severity, f.ID)
		if f.SessionID != "" {
			what += " in session " + termsafe.String(f.SessionID)
		}
		ps := f.Positions[:min(len(f.Positions), failOnPositions)]
		fm.items = append(fm.items, &matchedItem{what: what, unit: "line", positions: ps, total: f.PositionCount})
	}
	if len(fm.items) == 0 {
		return nil
	}
	return &fm
}

// JoinMatches is the matches of several conditions as one, or nil when
// none matched.
func JoinMatches(errs ...error) error {
	var fm FailOnMatch
	for _, err := range errs {
		if m, ok := err.(*FailOnMatch); ok {
			fm.items = append(fm.items, m.items...)
		}
	}
	if len(fm.items) == 0 {
		return nil
	}
	return &fm
}

// UnfinishedMatch is the match of the turns a verdict counts unfinished,
// ended at at (inspect.Report.UnfinishedAt), or nil when there are none.
func UnfinishedMatch(at []inspect.Position) error {
	if len(at) == 0 {
		return nil
	}
	return &FailOnMatch{[]*matchedItem{{what: "unfinished", unit: "turn", positions: at[:min(len(at), failOnPositions)], total: len(at)}}}
}
