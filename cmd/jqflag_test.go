package cmd

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
)

// TestJQFailureOutweighsDamage: an expression that fails on the output
// exits 2 with its own error, even when the input is damaged too: the
// filter keeps its failure and returns it once more when closed.
func TestJQFailureOutweighsDamage(t *testing.T) {
	data, err := os.ReadFile("../testdata/reconnect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	dir := t.TempDir()
	whole, cut := filepath.Join(dir, "whole.jsonl.gz"), filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(whole, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, gz.Bytes()[:gz.Len()-12], 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, file, want, not string }{
		{"whole input", whole, "--jq: error: stop", ""},
		{"damaged input", cut, "--jq: error: stop", "cut.jsonl.gz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, errOut := iostreams.Test("")
			code := run(ios, []string{"replay", "-o", "jsonl", "--jq", `if .line == 3 then error("stop") else .line end`, tc.file})
			if code != exitUsage || !strings.Contains(errOut.String(), tc.want) || tc.not != "" && strings.Contains(errOut.String(), tc.not) {
				t.Errorf("exit %d, stderr %q; want %d and %q without %q", code, errOut, exitUsage, tc.want, tc.not)
			}
		})
	}
}
