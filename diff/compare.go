package diff

import (
	"slices"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// Field names a message field that changed, as the protocol spells it.
type Field string

// The message fields Compare looks at, in the order it reports them.
const (
	FieldContent    Field = "content"
	FieldStatus     Field = "status"
	FieldRole       Field = "role"
	FieldCreatedAt  Field = "createdAt"
	FieldToolCallID Field = "toolCallId"
	FieldParts      Field = "parts"
	FieldToolCalls  Field = "toolCalls"
	FieldMetadata   Field = "metadata"
)

// Position is where one side of a pair came from.
type Position struct {
	File string
	Line int
	// Entry is the HAR entry whose body held the line, 0 for other
	// formats.
	Entry    int
	Sequence int64
	TurnID   string
	EventID  string
}

// PairDiff is everything that differs between two accepted snapshots of
// one session, the older one From and the newer one To.
type PairDiff struct {
	SessionID  string
	From, To   Position
	FromStatus replay.Status
	ToStatus   replay.Status
	// Usage is the newer snapshot's usage minus the older one's when both
	// are of one turn (UsageCompared). Usage is per turn (the AgentsKit
	// Chat server reports 0 until a turn's final snapshot, and 0 again in
	// the next turn), so across turns it is not compared and stays zero.
	Usage         replay.Usage
	UsageCompared bool
	// Inert counts, by reason, the inert deliveries between the two
	// snapshots. Compare leaves it nil; Differ fills it.
	Inert map[replay.Reason]int
	// AcceptedBetween counts accepted snapshots skipped between From and
	// To when they were named directly (Options.Range).
	AcceptedBetween int

	// Added are the new messages, in the newer projection's order.
	Added []replay.Message
	// Removed are the messages that disappeared, in the older order.
	Removed []Removal
	// Changed are the messages present in both that differ, in the newer
	// projection's order.
	Changed []MessageChange
	// Moved are the messages whose place among the others changed: the
	// fewest that explain the new order.
	Moved []Move

	Error   ErrorChange
	Lineage LineageChange

	// Coarse is set when the older projection was kept compact, because
	// the older projections of all sessions did not fit in the Differ's
	// budget: its texts over 256 bytes are their first 64 runes in Removed
	// and Changed, a change of such a content is Replaced unless it only
	// grew, and a change of such a JSON value is one change at $. Whole
	// gives the lengths of the whole texts.
	Coarse bool
	heads  map[*byte]digest
	// same maps each message of the newer projection to the message of
	// the older one it equals in every field, or -1: the messages a
	// Differ of borrowed projections keeps without copying (own).
	same []int
}

// Removal is a message that disappeared, with its place in the older
// projection and whether a lineage explains it, as the model's rule
// decides (model.Removals).
type Removal struct {
	Message replay.Message
	model.Removal
}

// Move is a message whose relative order changed; From and To are its
// indexes in the older and newer projection.
type Move struct {
	ID       string
	From, To int
}

// ErrorChange is the payload error on both sides; nil means absent.
type ErrorChange struct {
	From, To *replay.Diagnostic
}

// Changed says whether the payload error appeared, disappeared or changed.
func (e ErrorChange) Changed() bool {
	switch {
	case e.From == nil || e.To == nil:
		return (e.From == nil) != (e.To == nil)
	}
	return *e.From != *e.To
}

// LineageChange is the lineage on both sides; an empty Operation means
// the snapshot carried none.
type LineageChange struct {
	From, To replay.Lineage
}

// Changed says whether the lineage differs.
func (l LineageChange) Changed() bool { return l.From != l.To }

// StatusChanged says whether the payload status differs.
func (p *PairDiff) StatusChanged() bool { return p.FromStatus != p.ToStatus }

// Compare returns what changed from old to new. Messages are matched as
// model.Match matches them, so the cost is linear in the size of the two
// projections. old and new are not modified, and the result shares their
// strings.
func Compare(old, new Projection) PairDiff { return compare(old, new, true, nil) }

// scratch is a Differ's memory for compare, reused from pair to pair;
// nil allocates afresh.
type scratch struct {
	common []Move
	same   []int
}

// compare is Compare, with the word diff of changed content only when
// words is set. With sc, the result's same is sc's: good until the next
// compare with sc.
func compare(old, new Projection, words bool, sc *scratch) PairDiff {
	p := PairDiff{
		SessionID: new.SessionID,
		From:      position(&old), To: position(&new),
		FromStatus: old.Status, ToStatus: new.Status,
		Lineage: LineageChange{From: old.Lineage, To: new.Lineage},
		Coarse:  old.digests != nil,
	}
	if old.TurnID == new.TurnID {
		p.UsageCompared = true
		p.Usage = replay.Usage{
			PromptTokens:     new.Usage.PromptTokens - old.Usage.PromptTokens,
			CompletionTokens: new.Usage.CompletionTokens - old.Usage.CompletionTokens,
			TotalTokens:      new.Usage.TotalTokens - old.Usage.TotalTokens,
		}
	}
	if old.HasError {
		e := old.Error
		p.Error.From = &e
	}
	if new.HasError {
		e := new.Error
		p.Error.To = &e
	}
	compareMessages(&p, old.Messages, old.digests, new.Messages, new.Lineage, words, sc)
	return p
}

func position(p *Projection) Position {
	return Position{File: p.File, Line: p.Line, Entry: p.Entry, Sequence: p.Sequence, TurnID: p.TurnID, EventID: p.EventID}
}

// compareMessages compares the messages; digests are those of a compact
// older projection, or nil.
func compareMessages(p *PairDiff, old []replay.Message, digests []msgDigest, new []replay.Message, lin replay.Lineage, words bool, sc *scratch) {
	digest := func(i int) *msgDigest {
		if digests == nil {
			return nil
		}
		return &digests[i]
	}
	if sc == nil {
		sc = &scratch{}
	}
	common := slices.Grow(sc.common[:0], min(len(old), len(new)))
	p.same = slices.Grow(sc.same[:0], len(new))[:len(new)]
	for j := range p.same {
		p.same[j] = -1
	}
	both := func(i, j int) {
		common = append(common, Move{ID: new[j].ID, From: i, To: j})
		// Most messages of a snapshot are the ones before it unchanged:
		// they are told apart here, before compareMessage builds the
		// change it returns.
		if sameMessage(&old[i], digest(i), &new[j]) {
			p.same[j] = i
			return
		}
		if c, changed := compareMessage(&old[i], digest(i), &new[j], words); changed {
			p.noteHeads(&old[i], digest(i))
			p.Changed = append(p.Changed, c)
		}
	}
	added := func(j int) { p.Added = append(p.Added, new[j]) }
	removed := model.Match(model.Messages(old), model.Messages(new), both, added)
	for _, i := range removed {
		p.noteHeads(&old[i], digest(i))
		p.Removed = append(p.Removed, Removal{Message: old[i], Removal: model.Removal{Index: i}})
	}
	p.Explain(old, lin)
	p.Moved = moved(common)
	sc.common, sc.same = common[:0], p.same[:0]
}

// Explain marks the removals that lineage lin accounts for, given the
// older projection old (model.Explain). Compare applies the newer
// snapshot's lineage; Differ also applies the lineages of snapshots
// skipped by a Range.
func (p *PairDiff) Explain(old []replay.Message, lin replay.Lineage) {
	if len(p.Removed) == 0 {
		return
	}
	rs := p.removals()
	model.Explain(rs, model.Messages(old), lin)
	p.setRemovals(rs)
}

// removals are the model's part of each removal, for its rules to mark.
func (p *PairDiff) removals() []model.Removal {
	rs := make([]model.Removal, len(p.Removed))
	for i := range p.Removed {
		rs[i] = p.Removed[i].Removal
	}
	return rs
}

func (p *PairDiff) setRemovals(rs []model.Removal) {
	for i := range rs {
		p.Removed[i].Removal = rs[i]
	}
}

// MessageChange is one message present on both sides that differs.
type MessageChange struct {
	ID       string
	Old, New replay.Message
	// Fields lists what changed, in the order of the Field constants.
	Fields []Field
	// Grew is true when the new content only extends the old one; then
	// Appended is the text added at the end.
	Grew     bool
	Appended string
	// Words is the word-level edit of content that did not just grow. It
	// is nil when Replaced: the texts differ too much to diff cheaply
	// (see Words). Both are unset when the word diff was not asked for
	// (Options.NoWords).
	Words    []WordEdit
	Replaced bool

	ToolCalls []ToolCallChange
	Parts     []PathChange
	Metadata  []PathChange
}

// Has says whether field f changed.
func (c *MessageChange) Has(f Field) bool {
	for _, g := range c.Fields {
		if g == f {
			return true
		}
	}
	return false
}

// wholeDigest is the digest of a message kept whole: none, which reads
// as zero digests. It is shared, and never written.
var wholeDigest msgDigest

// sameMessage is the quick test for the common case of a message that did
// not change at all. d holds the digests of a compact a, or is nil.
func sameMessage(a *replay.Message, d *msgDigest, b *replay.Message) bool {
	if d == nil {
		d = &wholeDigest
	}
	if !d.content.same(a.Content, b.Content) || a.Status != b.Status || a.Role != b.Role || a.CreatedAt != b.CreatedAt ||
		a.HasToolCallID != b.HasToolCallID || !d.toolCallID.same(a.ToolCallID, b.ToolCallID) || !d.parts.same(a.Parts, b.Parts) ||
		!d.metadata.same(a.Metadata, b.Metadata) || a.HasToolCalls != b.HasToolCalls || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		if !sameToolCall(&a.ToolCalls[i], d.call(i), &b.ToolCalls[i]) {
			return false
		}
	}
	return true
}

// compareMessage compares two messages that are not the same
// (sameMessage); d holds the digests of a compact a, or is nil.
func compareMessage(a *replay.Message, d *msgDigest, b *replay.Message, words bool) (MessageChange, bool) {
	if d == nil {
		d = &wholeDigest
	}
	c := MessageChange{ID: b.ID, Old: *a, New: *b}
	if !d.content.same(a.Content, b.Content) {
		c.Fields = append(c.Fields, FieldContent)
		if rest, ok := d.content.prefixOf(a.Content, b.Content); ok {
			c.Grew, c.Appended = true, rest
		} else if words && d.content.n > 0 {
			c.Replaced = true
		} else if words {
			var ok bool
			if c.Words, ok = Words(a.Content, b.Content); !ok {
				c.Words, c.Replaced = nil, true
			}
		}
	}
	if a.Status != b.Status {
		c.Fields = append(c.Fields, FieldStatus)
	}
	if a.Role != b.Role {
		c.Fields = append(c.Fields, FieldRole)
	}
	if a.CreatedAt != b.CreatedAt {
		c.Fields = append(c.Fields, FieldCreatedAt)
	}
	if a.HasToolCallID != b.HasToolCallID || !d.toolCallID.same(a.ToolCallID, b.ToolCallID) {
		c.Fields = append(c.Fields, FieldToolCallID)
	}
	if c.Parts = jsonChange(a.Parts, d.parts, b.Parts); len(c.Parts) > 0 {
		c.Fields = append(c.Fields, FieldParts)
	}
	c.ToolCalls = compareToolCalls(a.ToolCalls, d.toolCalls, b.ToolCalls)
	if len(c.ToolCalls) > 0 || a.HasToolCalls != b.HasToolCalls {
		c.Fields = append(c.Fields, FieldToolCalls)
	}
	if c.Metadata = jsonChange(a.Metadata, d.metadata, b.Metadata); len(c.Metadata) > 0 {
		c.Fields = append(c.Fields, FieldMetadata)
	}
	return c, len(c.Fields) > 0
}

// jsonChange compares two raw JSON values by path; a, with digest d, is
// the older side as kept.
func jsonChange(a string, d digest, b string) []PathChange {
	switch {
	case d.same(a, b):
		return nil
	case d.n > 0:
		return wholeJSON(a, b)
	}
	return JSON(a, b)
}
