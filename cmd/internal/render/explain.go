package render

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/cmd/internal/text"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/inspect/lineage"
	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
)

// PrintRule prints one rule of the protocol reference.
func PrintRule(out io.Writer, pal iostreams.Palette, r replay.Rule) {
	_, body, _ := strings.Cut(r.Text, "\n")
	fmt.Fprintln(out, pal.Bold(termsafe.String(r.ID+": "+r.Title)))
	for line := range strings.Lines(body) {
		fmt.Fprintln(out, termsafe.String(strings.TrimRight(line, "\n")))
	}
}

// PrintFinding prints what a finding of inspect means, how it arises
// and what to do, as `snapctl help findings` has it.
func PrintFinding(out io.Writer, pal iostreams.Palette, c inspect.Check) {
	fmt.Fprintln(out, pal.Bold(c.ID+" ("+string(c.Severity)+"): "+c.Summary))
	for i, p := range findingParagraphs(c) {
		var b strings.Builder
		if i > 0 {
			b.WriteByte('\n')
		}
		wrapWords(&b, p, "", helpWidth)
		io.WriteString(out, b.String())
	}
}

// PrintOutcome writes what a turn's outcome means (model.Ending.Meaning),
// the word every view prints of how a turn ended for the client.
func PrintOutcome(out io.Writer, pal iostreams.Palette, e model.Ending) {
	printMeaning(out, pal, "outcome "+e.String(), e.Meaning())
}

// printMeaning writes a term in bold, then what it means, wrapped.
func printMeaning(out io.Writer, pal iostreams.Palette, term, meaning string) {
	var b strings.Builder
	wrapWords(&b, pal.Bold(term+":")+" "+meaning, "", helpWidth)
	io.WriteString(out, b.String())
}

// PrintTerm prints what a word lineage and inspect print about a turn
// means, when q is one, whatever its case: a turn's outcome (cut-off), a
// lineage problem (orphan) or another word of a turn (unfinished); false
// when q is none of them.
func PrintTerm(out io.Writer, pal iostreams.Palette, q string) bool {
	if e, ok := model.EndingNamed(q); ok {
		PrintOutcome(out, pal, e)
		return true
	}
	for _, k := range lineage.ProblemKinds {
		if strings.EqualFold(string(k), q) {
			printMeaning(out, pal, "lineage problem "+string(k), k.Meaning())
			return true
		}
	}
	for _, t := range turnWords {
		if strings.EqualFold(t.word, strings.Join(strings.Fields(q), " ")) {
			printMeaning(out, pal, t.word, t.meaning)
			return true
		}
	}
	return false
}

// turnWords are the other words the views print of a turn, with what
// each means.
var turnWords = []struct{ word, meaning string }{
	{"unfinished", "a turn whose outcome for the client is other than complete and that no finding names: " +
		"error, timed-out, cancelled, diagnostic, cut-off or refused (snapctl explain each). A session's verdict " +
		"counts each as a problem. A never-accepted turn is its turn-never-accepted finding instead, and an " +
		"unanswered turn, or one a diagnostic alone answered, its orphan-submit finding: one problem, not two " +
		"(snapctl help findings)."},
	{"completed later", "a later accepted snapshot of the session (on the AgentsKit server, the next turn's first) " +
		"shows the reply a turn left unfinished as complete: the server finished it, and the client saw it end only " +
		"then. The characters counted are those the later text has beyond what the turn delivered."},
	{"no usage", "the turn's last accepted snapshot is not complete and reports no token usage: the AgentsKit " +
		"server reports usage only on a turn's final snapshot, so it is not a turn that used no token."},
}

// TermNames are the words PrintTerm explains: the outcomes, the lineage
// problems, then the other words of a turn.
func TermNames() []string {
	var names []string
	for _, e := range model.Endings {
		names = append(names, e.String())
	}
	for _, k := range lineage.ProblemKinds {
		names = append(names, string(k))
	}
	for _, t := range turnWords {
		names = append(names, t.word)
	}
	return names
}

// ListRules writes rules as a table of ids and titles.
func ListRules(out io.Writer, rules []replay.Rule) {
	rows := make([][]string, len(rules))
	for i, r := range rules {
		rows[i] = []string{termsafe.String(r.ID), termsafe.String(strings.ReplaceAll(r.Title, "`", ""))}
	}
	// A failed write shows when the command flushes its output.
	_ = text.Render(out, nil, 0, ruleColumns, rows)
}

// ruleColumns are the columns of a list of rules.
var ruleColumns = []text.Column{{Name: "RULE"}, {Name: "TITLE", Fit: text.FitTail}}

// MatchRules finds the rules a query names, from the most to the least
// precise: an id, a name (the id's last part, such as a reason, or a
// `token` of the title, such as a field or a code), a phrase of a title,
// a phrase of the text, and last the words of a pasted detail.
func MatchRules(rules []replay.Rule, q string) []replay.Rule {
	// A detail of replay's table names its reason's rule (ResultDetail).
	for _, d := range cursorDetails() {
		if d.re.MatchString(strings.TrimSpace(q)) {
			for _, r := range rules {
				if r.ID == "cursor."+string(d.reason) {
					return []replay.Rule{r}
				}
			}
		}
	}
	lq := strings.ToLower(q)
	steps := []func(r replay.Rule) bool{
		func(r replay.Rule) bool { return strings.ToLower(r.ID) == lq },
		func(r replay.Rule) bool {
			_, last, _ := strings.Cut(r.ID, ".")
			return FoldName(last) == FoldName(q) || slices.Contains(titleTokens(r.Title), q)
		},
		// Whole words before parts of words: retry is a lineage
		// operation before it is part of retryable.
		func(r replay.Rule) bool { return containsWord(strings.ToLower(r.Title), lq) },
		func(r replay.Rule) bool { return containsWord(strings.ToLower(r.Text), lq) },
		func(r replay.Rule) bool { return strings.Contains(strings.ToLower(r.Title), lq) },
		func(r replay.Rule) bool { return strings.Contains(strings.ToLower(r.Text), lq) },
	}
	for _, match := range steps {
		var found []replay.Rule
		for _, r := range rules {
			if match(r) {
				found = append(found, r)
			}
		}
		if len(found) > 0 {
			return found
		}
	}
	return matchDetail(rules, q)
}

// containsWord says whether s holds q with no letter, digit or '_'
// right before or after it.
func containsWord(s, q string) bool {
	word := func(b byte) bool {
		return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	for i := 0; q != "" && i+len(q) <= len(s); {
		j := strings.Index(s[i:], q)
		if j < 0 {
			return false
		}
		at := i + j
		if (at == 0 || !word(s[at-1])) && (at+len(q) == len(s) || !word(s[at+len(q)])) {
			return true
		}
		i = at + 1
	}
	return false
}

// cursorDetails are the details ResultDetail writes of a verdict, with
// the reason each stands for.
var cursorDetails = sync.OnceValue(func() []struct {
	re     *regexp.Regexp
	reason replay.Reason
} {
	return []struct {
		re     *regexp.Regexp
		reason replay.Reason
	}{
		{regexp.MustCompile(`^from \d+(, gap \d+)?$`), replay.ReasonAdvanced},
		{regexp.MustCompile(`^sequence \d+ already accepted$`), replay.ReasonDuplicate},
		{regexp.MustCompile(`^sequence \d+ < accepted \d+$`), replay.ReasonStale},
	}
})

// FoldName makes "createdAt", "created-at" and "created_at" one name.
func FoldName(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(s))
}

var backquoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })

// titleTokens are the `quoted` names of a title: fields, codes, events.
func titleTokens(title string) []string {
	var out []string
	for _, m := range backquoted().FindAllStringSubmatch(title, -1) {
		out = append(out, m[1])
	}
	return out
}

var (
	quotedValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`) })
	wordRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z_]{2,}`) })
)

// matchDetail matches a detail pasted whole: its path's last key names
// the field, and its words, without the values it quotes, find the rules
// whose text holds most of them.
func matchDetail(rules []replay.Rule, q string) []replay.Rule {
	if path, msg, ok := strings.Cut(q, ": "); ok && !strings.Contains(path, " ") {
		key := path[strings.LastIndex(path, ".")+1:]
		if i := strings.IndexByte(key, '['); i >= 0 {
			key = key[:i]
		}
		var byKey []replay.Rule
		for _, r := range rules {
			if slices.Contains(titleTokens(r.Title), key) {
				byKey = append(byKey, r)
			}
		}
		if len(byKey) > 0 {
			// The rules whose own detail has this path come first: a
			// diagnostic's payload.version before the envelope's version.
			slices.SortStableFunc(byKey, func(a, b replay.Rule) int {
				return boolRank(strings.Contains(b.Text, "`"+path+":")) - boolRank(strings.Contains(a.Text, "`"+path+":"))
			})
			return byKey
		}
		q = msg
	}
	words := wordRe().FindAllString(quotedValue().ReplaceAllString(q, ""), -1)
	if len(words) == 0 {
		return nil
	}
	best, need := 0, (len(words)*2+2)/3
	var found []replay.Rule
	for _, r := range rules {
		text := strings.ToLower(r.Text)
		n := 0
		for _, w := range words {
			if strings.Contains(text, strings.ToLower(w)) {
				n++
			}
		}
		switch {
		case n < need || n < best:
		case n > best:
			best, found = n, []replay.Rule{r}
		default:
			found = append(found, r)
		}
	}
	return found
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CloseRules names the rule ids nearest a query that matched nothing.
func CloseRules(rules []replay.Rule, q string) []string {
	type near struct {
		id   string
		dist int
	}
	var all []near
	fq := FoldName(q)
	for _, r := range rules {
		_, last, _ := strings.Cut(r.ID, ".")
		d := min(editDistance(fq, FoldName(r.ID)), editDistance(fq, FoldName(last)))
		for _, tok := range titleTokens(r.Title) {
			d = min(d, editDistance(fq, FoldName(tok)))
		}
		if d <= max(1, len(fq)/3) {
			all = append(all, near{r.ID, d})
		}
	}
	slices.SortStableFunc(all, func(a, b near) int { return a.dist - b.dist })
	var out []string
	for _, n := range all[:min(len(all), 5)] {
		out = append(out, n.id)
	}
	return out
}

var codeLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`) })

// ServerCode says, of a query that matched nothing and looks like an
// error code (SESSION_BUSY, CHAT_TURN_FAILED, SERVER_TIMEOUT), that the
// server chose it and where such a code arrives, each place with its
// explain; "" for any other query. The contract names no code of the
// server's: inspect and lineage print them as they came.
func ServerCode(q string) string {
	if !codeLike().MatchString(q) {
		return ""
	}
	// PROTOCOL_ and SNAPCTL_ are the contract's and snapctl's own: a code
	// of theirs misspelt, not one a server chose.
	prefix, _, _ := strings.Cut(q, "_")
	for _, c := range []replay.Code{replay.CodeInvalidPayload, replay.CodeLineTooLong} {
		if own, _, _ := strings.Cut(string(c), "_"); prefix == own {
			return ""
		}
	}
	return fmt.Sprintf("no rule matches %q: a code like it is the server's own, not the wire contract's; "+
		"it arrives in an HTTP error body (snapctl explain request-refused), a diagnostic (snapctl explain diagnostic) "+
		"or an error snapshot (snapctl explain error)", q)
}

// UnknownReason is the error for a name in replay's --only or --fail-on
// list that is no reason, verdict or problems (words): for --fail-on, a
// severity or a finding id is inspect's, and the error says how to ask it.
func UnknownReason(flag, name string, words []string) string {
	msg := fmt.Sprintf("%s: unknown reason %q (want %s)", flag, name, text.OrList(words))
	_, finding := inspect.CheckByID(name)
	if flag == "--fail-on" && (finding || slices.Contains(inspect.Severities, inspect.Severity(name))) {
		msg += fmt.Sprintf("; severities and findings are inspect's: snapctl inspect --fail-on %s", name)
	}
	return msg
}

// UnknownFinding is the error for a flag's value that is no finding id:
// the ids nearest it, else where the ids are listed. (Which findings a
// capture has is a later error: this one is of the name alone.)
func UnknownFinding(flag, value string) string {
	if close := CloseFindings(value); len(close) > 0 {
		return fmt.Sprintf("%s %q is not a finding id; did you mean %s? (snapctl help findings lists them)", flag, value, text.OrList(close))
	}
	return fmt.Sprintf("%s %q is not a finding id (snapctl help findings lists them)", flag, value)
}

// CloseFindings names the finding ids nearest a query that matched
// nothing, as closeRules does for rules.
func CloseFindings(q string) []string {
	var out []string
	fq := FoldName(q)
	for _, c := range inspect.Checks {
		if editDistance(fq, FoldName(c.ID)) <= max(1, len(fq)/3) {
			out = append(out, c.ID)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
