// Package samples lists the captures in the module's testdata directory,
// for the tests that run something on every one of them.
package samples

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Dir is the module's testdata directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// All returns every capture under testdata, as absolute paths: the
// samples, the finding and explorer captures, the conformance cases, the
// other formats and the real server's (.jsonl, .har, .sse, .log, and
// compressed), but not the testscript scripts, the fuzz corpus, expected
// outputs (.expected.jsonl, .golden) or the READMEs. It fails t when there
// are fewer than 40, which would mean the directory moved.
func All(t testing.TB) []string {
	t.Helper()
	var captures []string
	err := filepath.WalkDir(Dir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "script" || d.Name() == "fuzz") {
			return filepath.SkipDir
		}
		name := strings.TrimSuffix(strings.TrimSuffix(d.Name(), ".gz"), ".zst")
		if !d.IsDir() && !strings.HasSuffix(name, ".expected.jsonl") &&
			slices.ContainsFunc([]string{".jsonl", ".har", ".sse", ".log"}, func(ext string) bool { return strings.HasSuffix(name, ext) }) {
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			captures = append(captures, abs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(captures) < 40 {
		t.Fatalf("only %d captures under %s", len(captures), Dir())
	}
	return captures
}
