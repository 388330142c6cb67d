package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/agentskit/snapctl"

// subjects ranks the packages under cmd/internal, one per subject: a
// package imports only those of a lower rank (and its own
// subpackages), so dependencies run one way, from the command layer
// down: cmd → explore, report → render → text, jsonout, help →
// iostreams. explore and report, of one rank, never import each other.
// A package of a subject not listed here fails the test until it is
// given its place.
var subjects = map[string]int{
	"iostreams": 0,
	"buildinfo": 0,
	"text":      1,
	"jsonout":   1,
	"help":      1,
	"render":    2,
	"explore":   3,
	"report":    3,
}

// belowCmdMayNot says whether a package under cmd/internal may not
// depend on dep, even through another: the cobra layer, cmd itself
// (the packages under cmd/internal are ranked by subjects instead).
func belowCmdMayNot(dep string) bool {
	return under(dep, "github.com/spf13/cobra") || under(dep, "github.com/spf13/pflag") || dep == modulePath+"/cmd"
}

// domainMayNot says whether a domain package (replay, inspect, diff)
// may not depend on dep: they never print, so they need neither the
// command layer, nor anything under it, nor its colours and tables.
func domainMayNot(dep string) bool {
	return slices.ContainsFunc([]string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/fatih/color",
		"github.com/olekukonko/tablewriter", modulePath + "/cmd"}, func(f string) bool { return under(dep, f) })
}

// listedPackage is what go list -json says of a package that the layout
// rules read.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// subjectOf returns the subject of a package under cmd/internal
// ("jsonout" for cmd/internal/jsonout/jsontest too), or "" for one that
// is not.
func subjectOf(path string) string {
	rest, ok := strings.CutPrefix(path, modulePath+"/cmd/internal/")
	if !ok {
		return ""
	}
	subject, _, _ := strings.Cut(rest, "/")
	return subject
}

// isDomain says whether path is replay, inspect, diff or one of their
// subpackages.
func isDomain(path string) bool {
	for _, d := range []string{"replay", "inspect", "diff"} {
		if under(path, modulePath+"/"+d) {
			return true
		}
	}
	return false
}

// under says whether path is pkg or a package under it.
func under(path, pkg string) bool {
	return path == pkg || strings.HasPrefix(path, pkg+"/")
}

// layoutViolations lists every dependency of pkgs that breaks the
// layout, one line each.
func layoutViolations(pkgs []listedPackage) []string {
	var bad []string
	for _, p := range pkgs {
		mayNot := domainMayNot
		subject := subjectOf(p.ImportPath)
		switch {
		case subject != "":
			mayNot = belowCmdMayNot
			rank, known := subjects[subject]
			if !known {
				bad = append(bad, fmt.Sprintf("%s: subject %q has no rank in subjects", p.ImportPath, subject))
			}
			for _, imp := range p.Imports {
				s := subjectOf(imp)
				if s == "" || s == subject || !known {
					continue
				}
				if r, ok := subjects[s]; !ok || r >= rank {
					bad = append(bad, fmt.Sprintf("%s imports %s: %s may import only subjects below it", p.ImportPath, imp, subject))
				}
			}
		case !isDomain(p.ImportPath):
			continue
		}
		for _, dep := range p.Deps {
			if mayNot(dep) {
				bad = append(bad, fmt.Sprintf("%s depends on %s", p.ImportPath, dep))
			}
		}
	}
	return bad
}

func TestLayoutViolations(t *testing.T) {
	in := func(s string) string { return modulePath + "/cmd/internal/" + s }
	cases := []struct {
		name string
		pkg  listedPackage
		want string // a part of the one violation; "" for none
	}{
		{"jsonout on iostreams", listedPackage{ImportPath: in("jsonout"), Imports: []string{in("iostreams")}}, ""},
		{"a subpackage of the same subject", listedPackage{ImportPath: in("jsonout"), Imports: []string{in("jsonout/jsontest")}}, ""},
		{"render on text and jsonout", listedPackage{ImportPath: in("render"), Imports: []string{in("text"), in("jsonout")}}, ""},
		{"report on render", listedPackage{ImportPath: in("report"), Imports: []string{in("render")}}, ""},
		{"iostreams on jsonout", listedPackage{ImportPath: in("iostreams"), Imports: []string{in("jsonout")}}, "may import only subjects below it"},
		{"text on jsonout", listedPackage{ImportPath: in("text"), Imports: []string{in("jsonout")}}, "may import only subjects below it"},
		{"explore on report", listedPackage{ImportPath: in("explore"), Imports: []string{in("report")}}, "may import only subjects below it"},
		{"render on explore", listedPackage{ImportPath: in("render/tree"), Imports: []string{in("explore")}}, "may import only subjects below it"},
		{"on a subject with no rank", listedPackage{ImportPath: in("render"), Imports: []string{in("misc")}}, "may import only subjects below it"},
		{"a subject with no rank", listedPackage{ImportPath: in("misc")}, `subject "misc" has no rank`},
		{"cobra through a dependency", listedPackage{ImportPath: in("text"), Deps: []string{"github.com/spf13/cobra"}}, "depends on github.com/spf13/cobra"},
		{"pflag", listedPackage{ImportPath: in("explore"), Deps: []string{"github.com/spf13/pflag"}}, "depends on github.com/spf13/pflag"},
		{"cmd", listedPackage{ImportPath: in("render"), Deps: []string{modulePath + "/cmd"}}, "depends on " + modulePath + "/cmd"},
		{"cmd/internal through a dependency", listedPackage{ImportPath: in("render"), Deps: []string{in("text"), in("iostreams")}}, ""},
		{"cobra's own packages", listedPackage{ImportPath: in("help"), Deps: []string{"github.com/spf13/cobra/doc"}}, "depends on github.com/spf13/cobra/doc"},
		{"domain on cmd/internal", listedPackage{ImportPath: modulePath + "/inspect/lineage", Deps: []string{in("text")}}, "depends on " + in("text")},
		{"domain on colour", listedPackage{ImportPath: modulePath + "/diff", Deps: []string{"github.com/fatih/color"}}, "depends on github.com/fatih/color"},
		{"domain on replay", listedPackage{ImportPath: modulePath + "/inspect", Deps: []string{modulePath + "/replay"}}, ""},
		{"cmd on anything", listedPackage{ImportPath: modulePath + "/cmd", Deps: []string{"github.com/spf13/cobra", in("explore")}}, ""},
		{"a name that only starts like a domain package", listedPackage{ImportPath: modulePath + "/differ", Deps: []string{modulePath + "/cmd"}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := layoutViolations([]listedPackage{tc.pkg})
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("violations %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("violations %q, want one with %q", got, tc.want)
			}
		})
	}
}

// TestLayout: the modulePath's packages, as go list sees them, keep the
// layout; packages made later under cmd/internal are checked as they
// appear.
func TestLayout(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", modulePath+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	// The rules must have something to read: the subjects that exist.
	for _, want := range []string{"iostreams", "text", "jsonout"} {
		if !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return subjectOf(p.ImportPath) == want }) {
			t.Fatalf("go list found no cmd/internal/%s in %d packages", want, len(pkgs))
		}
	}
	for _, v := range layoutViolations(pkgs) {
		t.Error(v)
	}
}

// TestCommandLayerIsThin: package cmd is cobra only, commands and their
// flags; views belong in cmd/internal. Past 3,500 lines of non-test code
// something that is not a command has crept back in.
func TestCommandLayerIsThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(data, []byte("\n"))
	}
	if lines == 0 || lines > 3500 {
		t.Errorf("package cmd has %d non-test lines, want at most 3,500", lines)
	}
}
