package help

import "strings"

// ManText keeps the indented blocks of a help text (the tables of
// reasons, findings and problems, examples) as they are in a man page:
// the generator reads the text as Markdown, which would fill them as
// paragraphs, so each block becomes a code block.
func ManText(long string) string {
	lines := strings.Split(long, "\n")
	var out []string
	inBlock := false
	for _, l := range lines {
		indented := strings.HasPrefix(l, "  ")
		switch {
		case indented && !inBlock:
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			inBlock = true
		case !indented && inBlock && l != "":
			out = append(out, "")
			inBlock = false
		}
		if indented {
			l = "  " + l
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
