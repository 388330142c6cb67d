package cmd

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/inspect"
	"github.com/agentskit/snapctl/internal/termsafe"
	"github.com/agentskit/snapctl/replay"
	"github.com/spf13/cobra"
)

// explainOptions is everything `snapctl explain` needs.
type explainOptions struct {
	IO    *iostreams.IOStreams
	Query string
	Rules []replay.Rule
}

// newCmdExplain builds `snapctl explain`. runF replaces the run function
// in tests; nil means explainRun.
func newCmdExplain(ios *iostreams.IOStreams, runF func(*explainOptions) error) *cobra.Command {
	opts := &explainOptions{IO: ios}
	c := &cobra.Command{
		Use:   "explain [FINDING|RULE|CODE|REASON|WORD...]",
		Short: "Print what a finding means, or the rule of the wire contract behind a verdict, code or detail",
		Long: `Explain prints, for a finding id of inspect (message-vanished), what it means,
how it arises and what to do, as snapctl help findings has it. Otherwise it
prints the part of the protocol reference (replay/PROTOCOL.md, built
into snapctl) that answers the question: a rule by its id
(envelope.sequence), a decode code (PROTOCOL_UNKNOWN_EVENT), a reason
(stale), a field (createdAt), or words from a detail, which may be pasted
whole. Several rules may match: each is printed, or listed when there are
many. Without arguments, every rule is listed with its id.

Exit status: 0 found, 2 nothing matches (the closest ids are named).

More than three matches are listed by id and title. Nothing matching is
exit 2, naming the closest ids (one line on standard error):

  $ snapctl explain createdAat
  snapctl: no rule matches "createdAat"; close matches: message.created-at \
    (snapctl explain lists every rule)`,
		Example: `  snapctl explain
  snapctl explain sequence-gap
  snapctl explain createdAt
  snapctl explain PROTOCOL_UNKNOWN_EVENT
  snapctl explain stale
  snapctl explain record.max-depth
  snapctl explain 'is nested deeper than 32 levels'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Query = strings.TrimSpace(strings.Join(args, " "))
			opts.Rules = replay.ProtocolRules()
			if runF != nil {
				return runF(opts)
			}
			return explainRun(opts)
		},
	}
	return c
}

// maxShown is how many matching rules are printed in full; more are listed.
const maxShown = 3

func explainRun(opts *explainOptions) error {
	out := opts.IO.Out
	if opts.Query == "" {
		listRules(out, opts.Rules)
		return nil
	}
	if c, ok := inspect.CheckByID(strings.ToLower(opts.Query)); ok {
		explainFinding(opts.IO, c)
		// A finding named like a reason (foreign-session) has its rule too.
		for _, r := range opts.Rules {
			if _, last, _ := strings.Cut(r.ID, "."); fold(last) == fold(opts.Query) {
				fmt.Fprintln(out)
				printRule(opts.IO, r)
			}
		}
		return nil
	}
	found := matchRules(opts.Rules, opts.Query)
	switch {
	case len(found) == 0:
		if close := append(closeFindings(opts.Query), closeRules(opts.Rules, opts.Query)...); len(close) > 0 {
			return usageErrorf("no rule matches %q; close matches: %s (snapctl explain lists every rule)", opts.Query, strings.Join(close, ", "))
		}
		return usageErrorf("no rule matches %q (snapctl explain lists every rule)", opts.Query)
	case len(found) > maxShown:
		fmt.Fprintf(out, "%d rules match %q; snapctl explain ID prints one:\n\n", len(found), termsafe.String(opts.Query))
		listRules(out, found)
		return nil
	}
	for i, r := range found {
		if i > 0 {
			fmt.Fprintln(out)
		}
		printRule(opts.IO, r)
	}
	return nil
}

// printRule prints one rule of the protocol reference.
func printRule(ios *iostreams.IOStreams, r replay.Rule) {
	_, body, _ := strings.Cut(r.Text, "\n")
	fmt.Fprintln(ios.Out, ios.Palette().Bold(termsafe.String(r.ID+": "+r.Title)))
	for line := range strings.Lines(body) {
		fmt.Fprintln(ios.Out, termsafe.String(strings.TrimRight(line, "\n")))
	}
}

// explainFinding prints what a finding of inspect means, how it arises
// and what to do, as `snapctl help findings` has it.
func explainFinding(ios *iostreams.IOStreams, c inspect.Check) {
	out := ios.Out
	fmt.Fprintln(out, ios.Palette().Bold(c.ID+" ("+string(c.Severity)+"): "+c.Summary))
	for i, p := range findingParagraphs(c) {
		var b strings.Builder
		if i > 0 {
			b.WriteByte('\n')
		}
		wrapWords(&b, p, "", helpWidth)
		io.WriteString(out, b.String())
	}
}

func listRules(out io.Writer, rules []replay.Rule) {
	width := 0
	for _, r := range rules {
		width = max(width, len(r.ID))
	}
	for _, r := range rules {
		fmt.Fprintf(out, "%-*s  %s\n", width, r.ID, termsafe.String(strings.ReplaceAll(r.Title, "`", "")))
	}
}

// matchRules finds the rules a query names, from the most to the least
// precise: an id, a name (the id's last part, such as a reason, or a
// `token` of the title, such as a field or a code), a phrase of a title,
// a phrase of the text, and last the words of a pasted detail.
func matchRules(rules []replay.Rule, q string) []replay.Rule {
	lq := strings.ToLower(q)
	steps := []func(r replay.Rule) bool{
		func(r replay.Rule) bool { return strings.ToLower(r.ID) == lq },
		func(r replay.Rule) bool {
			_, last, _ := strings.Cut(r.ID, ".")
			return fold(last) == fold(q) || slices.Contains(titleTokens(r.Title), q)
		},
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

// fold makes "createdAt", "created-at" and "created_at" one name.
func fold(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(s))
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// titleTokens are the `quoted` names of a title: fields, codes, events.
func titleTokens(title string) []string {
	var out []string
	for _, m := range backquoted.FindAllStringSubmatch(title, -1) {
		out = append(out, m[1])
	}
	return out
}

var (
	quotedValue = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	wordRe      = regexp.MustCompile(`[A-Za-z][A-Za-z_]{2,}`)
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
			return byKey
		}
		q = msg
	}
	words := wordRe.FindAllString(quotedValue.ReplaceAllString(q, ""), -1)
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

// closeRules names the rule ids nearest a query that matched nothing.
func closeRules(rules []replay.Rule, q string) []string {
	type near struct {
		id   string
		dist int
	}
	var all []near
	fq := fold(q)
	for _, r := range rules {
		_, last, _ := strings.Cut(r.ID, ".")
		d := min(editDistance(fq, fold(r.ID)), editDistance(fq, fold(last)))
		for _, tok := range titleTokens(r.Title) {
			d = min(d, editDistance(fq, fold(tok)))
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

// closeFindings names the finding ids nearest a query that matched
// nothing, as closeRules does for rules.
func closeFindings(q string) []string {
	var out []string
	fq := fold(q)
	for _, c := range inspect.Checks {
		if editDistance(fq, fold(c.ID)) <= max(1, len(fq)/3) {
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
