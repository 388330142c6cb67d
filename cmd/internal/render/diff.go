package render

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/diff"
	"github.com/agentskit/snapctl/internal/runes"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// Preview and context sizes of the text output, in characters.
const (
	previewRunes = 60
	contextRunes = 24
)

// DiffText writes pairs as text in the spirit of git diff
// --word-diff, or with stat one line per pair.
type DiffText struct {
	out      *bufio.Writer
	pal      iostreams.Palette
	stat     bool
	redact   bool
	withFile bool
	rng      bool

	pairs, added, removed, changed, moved int
	sessions                              map[string]bool
	// cur is the pair being written, for the lengths of its texts.
	cur *diff.PairDiff
	// tilde is the marker of a changed line, coloured, and its space.
	tilde string
	// num is scratch for the numbers of a header.
	num []byte
}

// DiffTextOptions says how pairs are written as text.
type DiffTextOptions struct {
	// Stat writes one line per pair instead of its changes.
	Stat bool
	// Redact hides every text that came from a message, tool call,
	// metadata or submit input.
	Redact bool
	// WithFile names the file in positions (several captures).
	WithFile bool
	// Range says the pairs were chosen by --from/--to, so a pair's
	// header also counts the accepted snapshots between its two sides.
	Range bool
}

// NewDiffText writes diff pairs to out as text, as o says.
func NewDiffText(out *bufio.Writer, pal iostreams.Palette, o DiffTextOptions) *DiffText {
	return &DiffText{out: out, pal: pal, stat: o.Stat, redact: o.Redact,
		withFile: o.WithFile, rng: o.Range, sessions: map[string]bool{}}
}

func (w *DiffText) Pair(p *diff.PairDiff) error {
	w.cur = p
	w.pairs++
	w.sessions[p.SessionID] = true
	w.added += len(p.Added)
	w.removed += len(p.Removed)
	w.changed += len(p.Changed)
	w.moved += len(p.Moved)
	if w.stat {
		w.statLine(p)
		return nil
	}
	if w.pairs > 1 {
		w.out.WriteByte('\n')
	}
	w.header(p)
	w.pairError(p)
	w.pairLineage(p)
	for _, m := range p.Added {
		w.line('+', fmt.Sprintf("%s (%s, %s): %s", termsafe.String(m.ID), m.Role, m.Status, w.text(m.Content)))
	}
	for _, r := range p.Removed {
		m := r.Message
		w.line('-', fmt.Sprintf("%s (%s, %s): %s  [%s]", termsafe.String(m.ID), m.Role, m.Status, w.text(m.Content), removalWhy(r.Explained, r.By)))
	}
	for i := range p.Changed {
		w.message(&p.Changed[i])
	}
	for _, m := range p.Moved {
		w.line('~', fmt.Sprintf("%s order: moved from position %d to %d", termsafe.String(m.ID), m.From+1, m.To+1))
	}
	return nil
}

func (w *DiffText) header(p *diff.PairDiff) {
	turn := p.To.TurnID
	if p.From.TurnID != p.To.TurnID {
		turn = p.From.TurnID + " → " + p.To.TurnID
	}
	// "lines 3 → 7", or "at entry 1:line 3 → entry 3:line 1"
	// where a position names more than a line.
	lines := "lines"
	if p.From.Entry > 0 || p.To.Entry > 0 {
		lines = "at"
	}
	b := append(w.num[:0], "@@ "...)
	b = append(b, p.SessionID...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, p.From.Sequence, 10)
	b = append(b, " → "...)
	b = strconv.AppendInt(b, p.To.Sequence, 10)
	b = append(b, " @@"...)
	w.num = b
	for _, s := range []string{w.pal.Cyan(string(b)), " turn ", turn, ", ", lines, " ", w.pos(p.From), " → ", w.pos(p.To), "\n  status  ", string(p.FromStatus)} {
		w.out.WriteString(s)
	}
	if p.StatusChanged() {
		w.out.WriteString(" → ")
		w.out.WriteString(string(p.ToStatus))
	}
	w.out.WriteByte('\n')
	if p.UsageCompared {
		w.out.WriteString("  usage   prompt ")
		w.signed(p.Usage.PromptTokens)
		w.out.WriteString(", completion ")
		w.signed(p.Usage.CompletionTokens)
		w.out.WriteString(", total ")
		w.signed(p.Usage.TotalTokens)
		w.out.WriteByte('\n')
	} else {
		fmt.Fprintln(w.out, "  usage   per turn: not compared across turns")
	}
	fmt.Fprintf(w.out, "  inert   %s\n", inertList(p.Inert))
	if w.rng {
		fmt.Fprintf(w.out, "  between %s\n", text.Plural(p.AcceptedBetween, "accepted snapshot"))
	}
}

func (w *DiffText) pos(at diff.Position) string {
	file := ""
	if w.withFile {
		file = termsafe.String(at.File)
	}
	return text.Position(file, at.Entry, at.Line)
}

func (w *DiffText) pairError(p *diff.PairDiff) {
	e := p.Error
	switch {
	case !e.Changed():
	case e.From == nil:
		w.line('+', "error: "+w.diagnostic(e.To))
	case e.To == nil:
		w.line('-', "error: "+w.diagnostic(e.From))
	default:
		w.line('~', "error: "+w.diagnostic(e.From)+" → "+w.diagnostic(e.To))
	}
}

func (w *DiffText) diagnostic(d *replay.Diagnostic) string {
	s := d.Code + " " + w.text(d.Message)
	if d.Retryable {
		s += " (retryable)"
	}
	return s
}

func (w *DiffText) pairLineage(p *diff.PairDiff) {
	if p.Lineage.Changed() {
		w.line('~', "lineage: "+lineageText(p.Lineage.From)+" → "+lineageText(p.Lineage.To))
	}
}

func lineageText(l replay.Lineage) string {
	switch l.Operation {
	case "":
		return "(none)"
	case replay.OpSubmit:
		return string(replay.OpSubmit)
	}
	return fmt.Sprintf("%s (parent %s, source %s)", l.Operation, l.ParentTurnID, termsafe.String(l.SourceMessageID))
}

// message writes one line per changed field of a message.
func (w *DiffText) message(c *diff.MessageChange) {
	id := termsafe.String(c.ID)
	for _, f := range c.Fields {
		prefix := id + " " + string(f) + ": "
		switch f {
		case diff.FieldContent:
			w.change(prefix, w.content(c))
		case diff.FieldStatus:
			w.change(prefix, c.Old.Status, " → ", c.New.Status)
		case diff.FieldRole:
			w.change(prefix, c.Old.Role, " → ", c.New.Role)
		case diff.FieldCreatedAt:
			w.change(prefix, c.Old.CreatedAt, " → ", c.New.CreatedAt)
		case diff.FieldToolCallID:
			w.line('~', prefix+optQuoted(c.Old.ToolCallID, c.Old.HasToolCallID)+" → "+optQuoted(c.New.ToolCallID, c.New.HasToolCallID))
		case diff.FieldParts:
			w.paths(prefix, c.Parts, replay.IsProtocolKey)
		case diff.FieldMetadata:
			w.paths(prefix, c.Metadata, nil)
		case diff.FieldToolCalls:
			w.toolCalls(prefix, c)
		}
	}
}

func optQuoted(s string, has bool) string {
	if !has {
		return "(none)"
	}
	return `"` + termsafe.String(s) + `"`
}

// content shows a content change: the appended text when it only grew,
// otherwise a word diff with long unchanged runs cut short.
func (w *DiffText) content(c *diff.MessageChange) string {
	// Only --redact shows lengths: counting the runes of every content
	// otherwise was some 8% of diff's own time on the 347 MB capture.
	var o, n int
	if w.redact {
		o, n = w.runes(c.Old.Content), w.runes(c.New.Content)
	}
	switch {
	case w.redact && c.Grew:
		return fmt.Sprintf("+%d chars (%d → %d)", n-o, o, n)
	case w.redact && c.Replaced:
		return fmt.Sprintf("rewritten (%d → %d chars)", o, n)
	case w.redact:
		del, ins := 0, 0
		for _, e := range c.Words {
			switch e.Op {
			case diff.WordDelete:
				del += len(strings.Fields(e.Text))
			case diff.WordInsert:
				ins += len(strings.Fields(e.Text))
			}
		}
		return fmt.Sprintf("%d → %d chars, %s removed, %s added", o, n, text.Plural(del, "word"), text.Plural(ins, "word"))
	case c.Grew:
		return "…" + w.ins(c.Appended)
	case c.Replaced:
		return w.del(c.Old.Content) + w.ins(c.New.Content) + " (rewritten)"
	}
	var b strings.Builder
	for i, e := range c.Words {
		switch e.Op {
		case diff.WordDelete:
			b.WriteString(w.del(e.Text))
		case diff.WordInsert:
			b.WriteString(w.ins(e.Text))
		default:
			b.WriteString(elide(e.Text, i > 0, i < len(c.Words)-1))
		}
	}
	return b.String()
}

func (w *DiffText) del(s string) string {
	return w.pal.Red("[-" + termsafe.Line(s, previewRunes) + "-]")
}

func (w *DiffText) ins(s string) string {
	return w.pal.Green("{+" + termsafe.Line(s, previewRunes) + "+}")
}

// elide keeps contextRunes of unchanged text next to each change. It
// cuts the text where it is, without converting it to runes, so a byte
// that is not UTF-8 still shows as \xNN.
func elide(s string, before, after bool) string {
	keep := 0
	if before {
		keep += contextRunes
	}
	if after {
		keep += contextRunes
	}
	if runes.Count(s) <= keep+1 {
		return termsafe.String(s)
	}
	var head, tail string
	if before {
		head = s[:runeOffset(s, contextRunes)]
	}
	if after {
		tail = s[len(s)-tailOffset(s, contextRunes):]
	}
	return termsafe.String(head) + "…" + termsafe.String(tail)
}

// runeOffset is the byte offset just past the first n characters of s,
// where a byte that is not UTF-8 counts as one character.
func runeOffset(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// tailOffset is the length in bytes of the last n characters of s.
func tailOffset(s string, n int) int {
	j := len(s)
	for ; n > 0 && j > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
	}
	return len(s) - j
}

// paths writes one line per JSON path change of parts or metadata.
func (w *DiffText) paths(prefix string, changes []diff.PathChange, keep func(string) bool) {
	for _, c := range changes {
		w.line('~', prefix+w.pathChange(c, keep))
	}
}

// pathChange shows one change by path; with --redact, the object keys of
// the path that keep does not name are hidden, as the values are.
func (w *DiffText) pathChange(c diff.PathChange, keep func(string) bool) string {
	path := c.Path
	if w.redact {
		path = redactJSONPath(path, keep)
	}
	path = termsafe.String(path)
	switch c.Kind {
	case diff.Added:
		return "+ " + path + " " + w.value(c.New)
	case diff.Removed:
		return "- " + path + " " + w.value(c.Old)
	}
	return path + " " + w.value(c.Old) + " → " + w.value(c.New)
}

// value shows a compact JSON value, or its size when redacting.
func (w *DiffText) value(v string) string {
	if w.redact {
		_, n := w.cur.Whole(v)
		return "(" + text.Plural(n, "byte") + ")"
	}
	return termsafe.Line(v, previewRunes)
}

func (w *DiffText) toolCalls(prefix string, c *diff.MessageChange) {
	if len(c.ToolCalls) == 0 {
		w.line('~', prefix+toolCallsPresence(c.Old.HasToolCalls)+" → "+toolCallsPresence(c.New.HasToolCalls))
	}
	for _, tc := range c.ToolCalls {
		id := termsafe.String(tc.ID)
		switch tc.Kind {
		case diff.Added:
			w.line('~', fmt.Sprintf("%s+ %s %s (%s)", prefix, id, w.toolName(tc.New.Name), tc.New.Status))
			continue
		case diff.Removed:
			w.line('~', fmt.Sprintf("%s- %s %s (%s)", prefix, id, w.toolName(tc.Old.Name), tc.Old.Status))
			continue
		}
		for _, f := range tc.Fields {
			head := prefix + id + " " + f + ": "
			switch f {
			case "name":
				w.line('~', head+w.toolName(tc.Old.Name)+" → "+w.toolName(tc.New.Name))
			case "status":
				w.line('~', head+tc.Old.Status+" → "+tc.New.Status)
			case "args":
				for _, a := range tc.Args {
					w.line('~', head+w.pathChange(a, nil))
				}
			case "result":
				w.line('~', head+w.optText(tc.Old.Result, tc.Old.HasResult)+" → "+w.optText(tc.New.Result, tc.New.HasResult))
			case "error":
				w.line('~', head+w.optText(tc.Old.Error, tc.Old.HasError)+" → "+w.optText(tc.New.Error, tc.New.HasError))
			}
		}
	}
}

// toolName is a tool call's name, free text that --redact shows only
// when it is a safe identifier.
func (w *DiffText) toolName(s string) string {
	return ShownField("payload.messages[].toolCalls[].name", s, w.redact)
}

func toolCallsPresence(has bool) string {
	if has {
		return "[]"
	}
	return "(none)"
}

// text shows capture text quoted, or its length when redacting.
func (w *DiffText) text(s string) string {
	if w.redact {
		return text.Plural(w.runes(s), "char")
	}
	return `"` + termsafe.Line(s, previewRunes) + `"`
}

// runes counts the characters of a text of the pair, whole even when the
// pair kept only its head (diff.PairDiff.Whole).
func (w *DiffText) runes(s string) int {
	n, _ := w.cur.Whole(s)
	return n
}

func (w *DiffText) optText(s string, has bool) string {
	if !has {
		return "(none)"
	}
	return w.text(s)
}

// line writes one change line; added and removed lines are coloured
// whole, changed lines only by their marker and inline edits.
func (w *DiffText) line(mark byte, s string) {
	switch mark {
	case '+':
		w.out.WriteString(w.pal.Green("+ "+s) + "\n")
	case '-':
		w.out.WriteString(w.pal.Red("- "+s) + "\n")
	default:
		w.change(s)
	}
}

// change writes a changed line of parts, written one after another
// rather than joined first: a diff of a long capture writes hundreds of
// thousands of them.
func (w *DiffText) change(parts ...string) {
	if w.tilde == "" {
		w.tilde = w.pal.Yellow("~") + " "
	}
	w.out.WriteString(w.tilde)
	for _, p := range parts {
		w.out.WriteString(p)
	}
	w.out.WriteByte('\n')
}

func (w *DiffText) statLine(p *diff.PairDiff) {
	parts := []string{fmt.Sprintf("%d added, %d removed, %d changed", len(p.Added), len(p.Removed), len(p.Changed))}
	if len(p.Moved) > 0 {
		parts[0] += fmt.Sprintf(", %d moved", len(p.Moved))
	}
	if p.StatusChanged() {
		parts = append(parts, "status "+string(p.FromStatus)+" → "+string(p.ToStatus))
	}
	if p.Usage.TotalTokens != 0 {
		parts = append(parts, "total tokens "+signed(p.Usage.TotalTokens))
	}
	if p.Error.Changed() {
		parts = append(parts, "error changed")
	}
	if p.Lineage.Changed() {
		parts = append(parts, "lineage changed")
	}
	if n := inertTotal(p.Inert); n > 0 {
		parts = append(parts, strconv.Itoa(n)+" inert between")
	}
	fmt.Fprintf(w.out, "%s %d → %d (%s): %s\n", p.SessionID, p.From.Sequence, p.To.Sequence, p.To.TurnID, strings.Join(parts, "; "))
}

// Finish writes the summary of the pairs, with what in says the
// comparison may lack: a window that left events out, lines too long to
// decode, a capture cut short.
func (w *DiffText) Finish(in replay.Stats) error {
	if w.pairs > 0 && !w.stat {
		w.out.WriteByte('\n')
	}
	_, err := fmt.Fprintf(w.out, "%s from %s: %d added, %d removed, %d changed, %d moved\n",
		text.Plural(w.pairs, "pair"), text.Plural(len(w.sessions), "session"), w.added, w.removed, w.changed, w.moved)
	writeInputWarnings(w.out, w.pal, in)
	return err
}

func inertList(m map[replay.Reason]int) string {
	parts := reasonList(m, replay.Reasons)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func inertTotal(m map[replay.Reason]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// signed writes n with its sign, as signed says it.
func (w *DiffText) signed(n int64) {
	b := w.num[:0]
	if n >= 0 {
		b = append(b, '+')
	}
	w.num = strconv.AppendInt(b, n, 10)
	w.out.Write(w.num)
}

func signed(n int64) string {
	if n >= 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
