package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/spf13/cobra"
)

// TestExamplesParse runs the snapctl part of every example of every
// command's help (and snapctl --help's) through the command's flags and
// their checks, up to the point where it would read a capture: an
// example that names a flag the command lost, or a value its flag no
// longer takes, fails here rather than at an operator's prompt. The
// captures the examples name exist (empty) in the work directory; what
// the captures hold (their sessions, turns and findings) is the
// example's own placeholder and is not checked.
func TestExamplesParse(t *testing.T) {
	seen := 0
	for _, c := range append(newRootCmd(iostreams.System()).Commands(), newRootCmd(iostreams.System())) {
		for _, line := range strings.Split(c.Example, "\n") {
			args := exampleArgs(line)
			if args == nil {
				continue
			}
			seen++
			t.Run(strings.TrimSpace(line), func(t *testing.T) {
				t.Chdir(t.TempDir())
				for i, a := range args {
					if isCaptureName(a) && (i == 0 || args[i-1] != "--out") {
						if err := os.WriteFile(a, nil, 0o600); err != nil {
							t.Fatal(err)
						}
					}
				}
				ios, _, errOut := iostreams.Test("")
				ios.OutTTY = true // explore's examples are for a terminal
				root := stubbedRoot(ios)
				root.SetArgs(args)
				if err := unknownCommand(root, args, root.Execute()); err != nil {
					t.Errorf("snapctl %s: %v (stderr %q)", strings.Join(args, " "), err, errOut.String())
				}
			})
		}
	}
	if seen < 30 {
		t.Fatalf("found %d examples: the help has more", seen)
	}
}

// stubbedRoot is snapctl's root command with every command that reads
// a capture or listens stopped just before it would: its flags parsed
// and checked, its run a no-op.
func stubbedRoot(ios *iostreams.IOStreams) *cobra.Command {
	root := newRootCmd(ios)
	for _, c := range []*cobra.Command{
		newCmdReplay(ios, func(*replayOptions) error { return nil }),
		newCmdDiff(ios, func(*diffOptions) error { return nil }),
		newCmdLineage(ios, func(*lineageOptions) error { return nil }),
		newCmdInspect(ios, func(*inspectOptions) error { return nil }),
		newCmdReport(ios, func(*reportOptions) error { return nil }),
		newCmdExplore(ios, func(*exploreOptions) error { return nil }),
		newCmdReduce(ios, func(*reduceOptions) error { return nil }),
		newCmdRecord(ios, func(*recordOptions) error { return nil }),
	} {
		old, _, err := root.Find([]string{c.Name()})
		if err != nil || old == root {
			panic("no command " + c.Name())
		}
		root.RemoveCommand(old)
		root.AddCommand(c)
	}
	return root
}

// isCaptureName says whether an example's word names a capture file.
func isCaptureName(a string) bool {
	for _, ext := range []string{".jsonl", ".jsonl.gz", ".har"} {
		if strings.HasSuffix(a, ext) && !strings.HasPrefix(a, "-") && filepath.Base(a) == a {
			return true
		}
	}
	return false
}

// exampleArgs returns the words after "snapctl" of an example line's
// snapctl command (the part of a pipeline that runs snapctl, without its
// redirections), or nil for a line that runs no snapctl. Words are split
// as a shell would split these examples: on blanks, with '…' and "…"
// quoting ("$URL" is kept as it is).
func exampleArgs(line string) []string {
	for _, seg := range splitOutsideQuotes(line, '|') {
		words := shellWords(seg)
		if len(words) == 0 || words[0] != "snapctl" {
			continue
		}
		var args []string
		for i := 1; i < len(words); i++ {
			if w := words[i]; w == ">" || w == ">>" || w == "#" {
				if w == "#" {
					break
				}
				i++ // and the file it redirects to
				continue
			}
			args = append(args, words[i])
		}
		return args
	}
	return nil
}

func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	var quote byte
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, b.String())
	}
	return out
}
