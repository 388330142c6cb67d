package diff

import (
	"reflect"
	"testing"

	"github.com/agentskit/snapctl/replay"
)

func msg(id, role, content, status string) replay.Message {
	return replay.Message{ID: id, Role: role, Content: content, Status: status, CreatedAt: "2026-07-11T09:00:00.000Z"}
}

func proj(seq int64, msgs ...replay.Message) Projection {
	return Projection{SessionID: "s", TurnID: "t", Sequence: seq, Status: "streaming", Messages: msgs}
}

// changedFields summarises a diff as id -> fields, for compact
// expectations.
func changedFields(p PairDiff) map[string][]Field {
	out := map[string][]Field{}
	for _, c := range p.Changed {
		out[c.ID] = c.Fields
	}
	return out
}

func ids(ms []replay.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestCompareMessageFields(t *testing.T) {
	base := msg("m", "assistant", "hello there", "streaming")
	with := func(f func(*replay.Message)) replay.Message { m := base; f(&m); return m }
	tests := []struct {
		name   string
		old    replay.Message
		new    replay.Message
		fields []Field
	}{
		{"identical", base, base, nil},
		{"content grew", base, with(func(m *replay.Message) { m.Content += " friend" }), []Field{FieldContent}},
		{"content rewritten", base, with(func(m *replay.Message) { m.Content = "goodbye there" }), []Field{FieldContent}},
		{"status", base, with(func(m *replay.Message) { m.Status = "complete" }), []Field{FieldStatus}},
		{"role", base, with(func(m *replay.Message) { m.Role = "user" }), []Field{FieldRole}},
		{"createdAt", base, with(func(m *replay.Message) { m.CreatedAt = "2026-07-11T09:00:01.000Z" }), []Field{FieldCreatedAt}},
		{"toolCallId appears", base, with(func(m *replay.Message) { m.HasToolCallID = true }), []Field{FieldToolCallID}},
		{"toolCallId changes", with(func(m *replay.Message) { m.ToolCallID, m.HasToolCallID = "a", true }),
			with(func(m *replay.Message) { m.ToolCallID, m.HasToolCallID = "b", true }), []Field{FieldToolCallID}},
		{"parts", with(func(m *replay.Message) { m.Parts = `[{"type":"text","text":"a"}]` }),
			with(func(m *replay.Message) { m.Parts = `[{"type":"text","text":"b"}]` }), []Field{FieldParts}},
		{"parts reformatted only", with(func(m *replay.Message) { m.Parts = `[{"type":"text","text":"a"}]` }),
			with(func(m *replay.Message) { m.Parts = `[ {"text":"a", "type":"text"} ]` }), nil},
		{"metadata", with(func(m *replay.Message) { m.Metadata = `{"a":1}` }),
			with(func(m *replay.Message) { m.Metadata = `{"a":2}` }), []Field{FieldMetadata}},
		{"toolCalls appear empty", base, with(func(m *replay.Message) { m.HasToolCalls = true }), []Field{FieldToolCalls}},
		{"toolCalls", base, with(func(m *replay.Message) {
			m.HasToolCalls, m.ToolCalls = true, []replay.ToolCall{{ID: "c", Name: "n", Status: "pending", Args: "{}"}}
		}), []Field{FieldToolCalls}},
		{"several, in order", base, with(func(m *replay.Message) {
			m.Metadata, m.Status, m.Content = `{}`, "complete", "hi"
		}), []Field{FieldContent, FieldStatus, FieldMetadata}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Compare(proj(1, tt.old), proj(2, tt.new))
			got := changedFields(p)[tt.new.ID]
			if !reflect.DeepEqual(got, tt.fields) {
				t.Fatalf("fields = %v, want %v", got, tt.fields)
			}
			if len(p.Added)+len(p.Removed)+len(p.Moved) != 0 {
				t.Fatalf("unexpected added/removed/moved: %+v", p)
			}
		})
	}
}

func TestCompareContent(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		grew     bool
		appended string
		words    []WordEdit
	}{
		{"grew", "The gateway", "The gateway restarted", true, " restarted", nil},
		{"grew from empty", "", "Hi", true, "Hi", nil},
		{"shrank", "The gateway restarted", "The gateway", false, "", []WordEdit{{WordEqual, "The gateway"}, {WordDelete, " restarted"}}},
		{"word replaced", "The gateway restarted", "The proxy restarted", false, "",
			[]WordEdit{{WordEqual, "The "}, {WordDelete, "gateway"}, {WordInsert, "proxy"}, {WordEqual, " restarted"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Compare(proj(1, msg("m", "assistant", tt.old, "streaming")), proj(2, msg("m", "assistant", tt.new, "streaming")))
			if len(p.Changed) != 1 {
				t.Fatalf("changed = %d, want 1", len(p.Changed))
			}
			c := p.Changed[0]
			if c.Grew != tt.grew || c.Appended != tt.appended || !reflect.DeepEqual(c.Words, tt.words) {
				t.Fatalf("got grew=%v appended=%q words=%v", c.Grew, c.Appended, c.Words)
			}
		})
	}
}

func TestCompareMessagesByID(t *testing.T) {
	a, b, c := msg("a", "user", "A", "complete"), msg("b", "assistant", "B", "complete"), msg("c", "assistant", "C", "streaming")
	tests := []struct {
		name     string
		old, new []replay.Message
		lineage  replay.Lineage
		added    []string
		removed  []string
		explain  []bool
		moved    []string
	}{
		{"added at end", []replay.Message{a}, []replay.Message{a, b}, replay.Lineage{}, []string{"b"}, nil, nil, nil},
		{"removed, unexplained", []replay.Message{a, b}, []replay.Message{b}, replay.Lineage{Operation: "submit"}, nil, []string{"a"}, []bool{false}, nil},
		{"removed by regenerate of it", []replay.Message{a, b}, []replay.Message{a, c},
			replay.Lineage{Operation: "regenerate", ParentTurnID: "t0", SourceMessageID: "b"}, []string{"c"}, []string{"b"}, []bool{true}, nil},
		{"removed before the edit source", []replay.Message{a, b, c}, []replay.Message{b},
			replay.Lineage{Operation: "edit", ParentTurnID: "t0", SourceMessageID: "b"}, nil, []string{"a", "c"}, []bool{false, true}, nil},
		{"source unknown explains nothing", []replay.Message{a, b}, []replay.Message{a},
			replay.Lineage{Operation: "retry", ParentTurnID: "t0", SourceMessageID: "zz"}, nil, []string{"b"}, []bool{false}, nil},
		{"swap", []replay.Message{a, b}, []replay.Message{b, a}, replay.Lineage{}, nil, nil, nil, []string{"b"}},
		{"one moved to front", []replay.Message{a, b, c}, []replay.Message{c, a, b}, replay.Lineage{}, nil, nil, nil, []string{"c"}},
		{"insert does not move", []replay.Message{a, c}, []replay.Message{a, b, c}, replay.Lineage{}, []string{"b"}, nil, nil, nil},
		{"repeated ids match in turn", []replay.Message{a, a}, []replay.Message{a}, replay.Lineage{}, nil, []string{"a"}, []bool{false}, nil},
		{"repeated id after a common prefix", []replay.Message{a, b, a}, []replay.Message{a, b, c, a}, replay.Lineage{}, []string{"c"}, nil, nil, nil},
		{"repeated id beyond the prefix moves", []replay.Message{a, b, a, c}, []replay.Message{a, c, a, b}, replay.Lineage{}, nil, nil, nil, []string{"c", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := proj(2, tt.new...)
			np.Lineage = tt.lineage
			p := Compare(proj(1, tt.old...), np)
			if got := ids(p.Added); !reflect.DeepEqual(got, tt.added) {
				t.Errorf("added = %v, want %v", got, tt.added)
			}
			var removed []string
			var explain []bool
			for _, r := range p.Removed {
				removed, explain = append(removed, r.Message.ID), append(explain, r.Explained)
			}
			if !reflect.DeepEqual(removed, tt.removed) || !reflect.DeepEqual(explain, tt.explain) {
				t.Errorf("removed = %v %v, want %v %v", removed, explain, tt.removed, tt.explain)
			}
			var moved []string
			for _, m := range p.Moved {
				moved = append(moved, m.ID)
			}
			if !reflect.DeepEqual(moved, tt.moved) {
				t.Errorf("moved = %v, want %v", moved, tt.moved)
			}
		})
	}
}

func TestComparePayload(t *testing.T) {
	diag := replay.Diagnostic{Code: "ADAPTER_FAILED", Message: "boom", Retryable: true}
	tests := []struct {
		name             string
		old, new         Projection
		status, err, lin bool
		usage            replay.Usage
	}{
		{"nothing", proj(1), proj(2), false, false, false, replay.Usage{}},
		{"status", proj(1), Projection{Status: "complete"}, true, false, false, replay.Usage{}},
		{"usage down", Projection{Status: "streaming", Usage: replay.Usage{PromptTokens: 5, TotalTokens: 9}},
			Projection{Status: "streaming", Usage: replay.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 4}},
			false, false, false, replay.Usage{PromptTokens: 2, CompletionTokens: 3, TotalTokens: -5}},
		{"error added", proj(1), Projection{Status: "streaming", HasError: true, Error: diag}, false, true, false, replay.Usage{}},
		{"error removed", Projection{Status: "streaming", HasError: true, Error: diag}, proj(2), false, true, false, replay.Usage{}},
		{"error same", Projection{Status: "streaming", HasError: true, Error: diag},
			Projection{Status: "streaming", HasError: true, Error: diag}, false, false, false, replay.Usage{}},
		{"lineage", proj(1), Projection{Status: "streaming", Lineage: replay.Lineage{Operation: "submit"}}, false, false, true, replay.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Compare(tt.old, tt.new)
			if p.StatusChanged() != tt.status || p.Error.Changed() != tt.err || p.Lineage.Changed() != tt.lin || p.Usage != tt.usage {
				t.Fatalf("status %v error %v lineage %v usage %+v", p.StatusChanged(), p.Error.Changed(), p.Lineage.Changed(), p.Usage)
			}
		})
	}
}

func TestCompareToolCalls(t *testing.T) {
	call := replay.ToolCall{ID: "c1", Name: "search", Status: "running", Args: `{"q":"a"}`}
	with := func(f func(*replay.ToolCall)) replay.ToolCall { c := call; f(&c); return c }
	tests := []struct {
		name     string
		old, new []replay.ToolCall
		want     []string // kind:id:fields
	}{
		{"same", []replay.ToolCall{call}, []replay.ToolCall{call}, nil},
		{"added", nil, []replay.ToolCall{call}, []string{"added:c1:"}},
		{"removed", []replay.ToolCall{call}, nil, []string{"removed:c1:"}},
		{"status and result", []replay.ToolCall{call}, []replay.ToolCall{with(func(c *replay.ToolCall) {
			c.Status, c.Result, c.HasResult = "complete", "ok", true
		})}, []string{"changed:c1:status,result"}},
		{"error and name", []replay.ToolCall{call}, []replay.ToolCall{with(func(c *replay.ToolCall) {
			c.Name, c.HasError = "find", true
		})}, []string{"changed:c1:name,error"}},
		{"args", []replay.ToolCall{call}, []replay.ToolCall{with(func(c *replay.ToolCall) { c.Args = `{"q":"b"}` })}, []string{"changed:c1:args"}},
		{"args reordered only", []replay.ToolCall{with(func(c *replay.ToolCall) { c.Args = `{"a":1,"b":2}` })},
			[]replay.ToolCall{with(func(c *replay.ToolCall) { c.Args = `{"b":2,"a":1.0}` })}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range compareToolCalls(tt.old, nil, tt.new) {
				s := string(c.Kind) + ":" + c.ID + ":"
				for i, f := range c.Fields {
					if i > 0 {
						s += ","
					}
					s += f
				}
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCompareUsagePerTurn: usage is per turn (0 until a turn's final
// snapshot and 0 again in the next, as the AgentsKit Chat server reports
// it), so it is compared within one turn only: a drop at a turn boundary
// is no loss of tokens.
func TestCompareUsagePerTurn(t *testing.T) {
	done := Projection{TurnID: "turn-1", Status: "complete", Usage: replay.Usage{PromptTokens: 27, CompletionTokens: 54, TotalTokens: 81}}
	next := Projection{TurnID: "turn-2", Status: "streaming"}
	if p := Compare(done, next); p.UsageCompared || p.Usage != (replay.Usage{}) {
		t.Errorf("across turns: compared %v, usage %+v; want not compared", p.UsageCompared, p.Usage)
	}
	streaming := Projection{TurnID: "turn-1", Status: "streaming"}
	if p := Compare(streaming, done); !p.UsageCompared || p.Usage.TotalTokens != 81 {
		t.Errorf("within a turn: compared %v, usage %+v; want +81", p.UsageCompared, p.Usage)
	}
}

// TestRealServerUsage: over real-alpha.jsonl, a capture of the real
// AgentsKit Chat server, usage never drops within a turn, and the two
// turn boundaries, where it falls back to 0, are not compared.
func TestRealServerUsage(t *testing.T) {
	rd, err := replay.Open([]string{"../testdata/real-server/real-alpha.jsonl"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	across := 0
	d := NewDiffer(Options{NoWords: true}, func(p *PairDiff) error {
		switch {
		case p.From.TurnID != p.To.TurnID:
			across++
			if p.UsageCompared {
				t.Errorf("%s → %s: usage compared across turns: %+v", p.From.TurnID, p.To.TurnID, p.Usage)
			}
		case !p.UsageCompared || p.Usage.TotalTokens < 0:
			t.Errorf("line %d: usage within %s: compared %v, %+v", p.To.Line, p.To.TurnID, p.UsageCompared, p.Usage)
		}
		return nil
	})
	if _, err := replay.Run(rd, replay.Options{Messages: true}, d.Add); err != nil {
		t.Fatal(err)
	}
	if across != 2 {
		t.Errorf("%d pairs across turns, want 2", across)
	}
}
