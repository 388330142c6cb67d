package diff

import "github.com/agentskit/snapctl/replay"

// ChangeKind says whether something was added, removed or changed.
type ChangeKind string

// The three kinds of change.
const (
	Added   ChangeKind = "added"
	Removed ChangeKind = "removed"
	Changed ChangeKind = "changed"
)

// ToolCallChange is one tool call of a message that was added, removed
// or changed. For a change, Fields names what differs (name, status,
// args, result, error) and Args holds the argument changes by JSON path.
type ToolCallChange struct {
	Kind     ChangeKind
	ID       string
	Old, New replay.ToolCall
	Fields   []string
	Args     []PathChange
}

// compareToolCalls matches tool calls by id, as messages are matched:
// linear in the number of calls. digests are those of the calls of a
// compact older message, or nil.
func compareToolCalls(old []replay.ToolCall, digests []callDigest, new []replay.ToolCall) []ToolCallChange {
	if len(old) == 0 && len(new) == 0 {
		return nil
	}
	// The k-th call with an id matches the k-th with the same id.
	type callKey struct {
		id string
		k  int
	}
	oldAt := make(map[callKey]int, len(old))
	nth := make(map[string]int, len(old))
	for i := range old {
		oldAt[callKey{old[i].ID, nth[old[i].ID]}] = i
		nth[old[i].ID]++
	}
	clear(nth)
	matched := make([]bool, len(old))
	var out []ToolCallChange
	for j := range new {
		b := &new[j]
		i, ok := oldAt[callKey{b.ID, nth[b.ID]}]
		nth[b.ID]++
		if !ok {
			out = append(out, ToolCallChange{Kind: Added, ID: b.ID, New: *b})
			continue
		}
		matched[i] = true
		var d callDigest
		if digests != nil {
			d = digests[i]
		}
		if c, changed := compareToolCall(&old[i], d, b); changed {
			out = append(out, c)
		}
	}
	for i := range old {
		if !matched[i] {
			out = append(out, ToolCallChange{Kind: Removed, ID: old[i].ID, Old: old[i]})
		}
	}
	return out
}

// sameToolCall says whether two tool calls are equal; d holds the
// digests of a compact a.
func sameToolCall(a *replay.ToolCall, d callDigest, b *replay.ToolCall) bool {
	return a.ID == b.ID && a.Status == b.Status && a.HasResult == b.HasResult && a.HasError == b.HasError &&
		d.name.same(a.Name, b.Name) && d.args.same(a.Args, b.Args) && d.result.same(a.Result, b.Result) && d.error.same(a.Error, b.Error)
}

// compareToolCall compares two tool calls with one id; d holds the
// digests of a compact a.
func compareToolCall(a *replay.ToolCall, d callDigest, b *replay.ToolCall) (ToolCallChange, bool) {
	c := ToolCallChange{Kind: Changed, ID: b.ID, Old: *a, New: *b}
	if !d.name.same(a.Name, b.Name) {
		c.Fields = append(c.Fields, "name")
	}
	if a.Status != b.Status {
		c.Fields = append(c.Fields, "status")
	}
	if c.Args = jsonChange(a.Args, d.args, b.Args); len(c.Args) > 0 {
		c.Fields = append(c.Fields, "args")
	}
	if a.HasResult != b.HasResult || !d.result.same(a.Result, b.Result) {
		c.Fields = append(c.Fields, "result")
	}
	if a.HasError != b.HasError || !d.error.same(a.Error, b.Error) {
		c.Fields = append(c.Fields, "error")
	}
	return c, len(c.Fields) > 0
}
