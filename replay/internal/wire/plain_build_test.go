package wire

import (
	"go/build"
	"slices"
	"testing"
)

// TestPlainBuildsEverywhere checks the build constraints of the vector
// scan: each toolchain and machine builds exactly one plainPrefix, and
// the assembly only where the gc toolchain builds for amd64 without the
// tag purego (gccgo takes no Go assembly).
func TestPlainBuildsEverywhere(t *testing.T) {
	for _, c := range []struct {
		arch, compiler string
		tags           []string
		asm            bool
	}{
		{"amd64", "gc", nil, true},
		{"amd64", "gc", []string{"purego"}, false},
		{"amd64", "gccgo", nil, false},
		{"arm64", "gc", nil, false},
		{"386", "gc", nil, false},
	} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH, ctx.Compiler, ctx.BuildTags = "linux", c.arch, c.compiler, c.tags
		ctx.CgoEnabled = false
		pkg, err := ctx.ImportDir(".", 0)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		amd64, other := slices.Contains(pkg.GoFiles, "plain_amd64.go"), slices.Contains(pkg.GoFiles, "plain_other.go")
		asm := slices.Contains(pkg.SFiles, "plain_amd64.s")
		if amd64 == other || asm != c.asm || amd64 != c.asm {
			t.Errorf("%+v: plain_amd64.go %v, plain_other.go %v, plain_amd64.s %v", c, amd64, other, asm)
		}
	}
}
