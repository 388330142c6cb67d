// Package samples lists the captures in the module's testdata directory,
// for the tests that run something on every one of them.
package samples

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Dir is the module's testdata directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// All returns every capture under testdata: the samples, the finding and
// explorer captures, the conformance cases, the other formats and the
// real server's, but not the testscript scripts, the fuzz corpus or the
// READMEs. It fails t when there are fewer than 40, which would mean the
// directory moved.
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
		if !d.IsDir() && !strings.HasSuffix(d.Name(), ".md") {
			captures = append(captures, path)
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
